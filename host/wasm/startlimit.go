package wasm

import (
	"sync/atomic"
	"time"
)

// cpuWatch limits work on one thread to a share of the thread's CPU time.
type cpuWatch struct {
	done  chan struct{}
	spent atomic.Bool
}

// watchCPU calls stop once the calling thread has used limit of CPU time
// from now, unless the watch ended first (end, once).
func watchCPU(stop func(), limit time.Duration) *cpuWatch {
	cpu := meter()
	w := &cpuWatch{done: make(chan struct{})}
	go func() {
		for wait := limit; ; {
			t := time.NewTimer(wait)
			select {
			case <-w.done:
				t.Stop()
				return
			case <-t.C:
			}
			left := limit - cpu.used()
			if left <= 0 {
				w.spent.Store(true)
				stop()
				return
			}
			wait = max(left, time.Millisecond)
		}
	}()
	return w
}

// expired reports whether the watch stopped the work.
func (w *cpuWatch) expired() bool { return w.spent.Load() }

// end ends the watch; call it once.
func (w *cpuWatch) end() { close(w.done) }
