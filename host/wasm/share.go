package wasm

import (
	"context"
	"sync"
	"time"
)

// Default CPU share of one plugin (Options.CPUShare, Options.CPUBurst).
const (
	DefaultCPUShare = 0.02
	DefaultCPUBurst = 50 * time.Millisecond
)

// cpuShare is one plugin's share of the CPU, a token bucket of CPU time:
// it fills at rate (CPU seconds per second) up to burst, and every call
// and instance start of the plugin is charged what it used. A call starts
// only when the bucket is not in debt, and may use burst of CPU time at
// most (less if its deadline is shorter), in debt if need be: beyond that
// it is stopped, a fault. So a plugin that loops burns one burst at a time
// and, over time, its rate and no more, however often it is called or
// re-enabled; one that stays within its rate never waits, and one a little
// over it waits a little before each call.
//
// Why a share and not only the deadline: on the machines measured, CPU
// time burnt at the lowest priority still costs payments latency, in
// proportion to how much of it there is (see docs/plugins.md).
type cpuShare struct {
	rate  float64
	burst time.Duration

	mu     sync.Mutex
	tokens time.Duration // below zero: a debt, from calls that overran
	at     time.Time     // when tokens was last filled
}

func newCPUShare(rate float64, burst time.Duration) *cpuShare {
	return &cpuShare{rate: rate, burst: burst, tokens: burst, at: time.Now()}
}

// fill adds what accrued since the last fill; s.mu is held.
func (s *cpuShare) fill() {
	now := time.Now()
	s.tokens = min(s.burst, s.tokens+time.Duration(float64(now.Sub(s.at))*s.rate))
	s.at = now
}

// ready tells whether the bucket is out of debt: a call may start now.
func (s *cpuShare) ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fill()
	return s.tokens >= 0
}

// take waits until the bucket is out of debt, or ctx ends.
func (s *cpuShare) take(ctx context.Context) error {
	var timer *time.Timer
	for {
		s.mu.Lock()
		s.fill()
		have := s.tokens
		s.mu.Unlock()
		if have >= 0 {
			return nil
		}
		wait := time.Duration(float64(-have)/s.rate) + time.Millisecond
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// charge takes the CPU time a call or an instance start used.
func (s *cpuShare) charge(used time.Duration) {
	s.mu.Lock()
	s.fill()
	s.tokens -= used
	s.mu.Unlock()
}

// shares keeps each plugin's share by name, for the runtime's life: a
// plugin that is disabled and enabled again, or removed and installed
// again, keeps its debt.
type shares struct {
	rate  float64
	burst time.Duration
	mu    sync.Mutex
	m     map[string]*cpuShare
}

func (ss *shares) of(name string) *cpuShare {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[name]
	if !ok {
		if ss.m == nil {
			ss.m = map[string]*cpuShare{}
		}
		s = newCPUShare(ss.rate, ss.burst)
		ss.m[name] = s
	}
	return s
}

// cpuMeter measures the CPU time the calling thread uses: its CPU clock
// where it can be read (Linux), else wall time.
type cpuMeter struct {
	clock int32 // 0: wall time only
	cpu0  time.Duration
	wall0 time.Time
}

// shortCall is a wall time under which a call is charged its wall time,
// without reading the thread's CPU clock (a system call, a tenth of an
// event delivery): CPU time never runs faster than wall time, and a call
// that short was hardly kept waiting.
const shortCall = 20 * time.Microsecond

// meter starts a cpuMeter on the calling thread, which must be locked to
// it (a pinned worker or an executor thread).
func meter() cpuMeter {
	c := cpuMeter{clock: threadCPUClock(), wall0: time.Now()}
	if t, ok := cpuTime(c.clock); ok {
		c.cpu0 = t
	} else {
		c.clock = 0
	}
	return c
}

// used is the CPU time since meter, or the wall time when that is less
// than shortCall or the CPU clock cannot be read.
func (c cpuMeter) used() time.Duration {
	wall := time.Since(c.wall0)
	if c.clock == 0 || wall < shortCall {
		return wall
	}
	if t, ok := cpuTime(c.clock); ok {
		return t - c.cpu0
	}
	return wall
}
