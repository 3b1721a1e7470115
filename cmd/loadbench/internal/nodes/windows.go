package nodes

import (
	"context"
	"slices"
	"sync"
	"time"
)

// windowLog collects the withdrawal's windows.
type windowLog struct {
	mu  sync.Mutex
	got []time.Duration
}

// add notes a window: from an invoice's settlement to its cancel.
func (w *windowLog) add(d time.Duration) {
	w.mu.Lock()
	w.got = append(w.got, d)
	w.mu.Unlock()
}

// reset forgets the windows noted so far.
func (w *windowLog) reset() {
	w.mu.Lock()
	w.got = nil
	w.mu.Unlock()
}

// wait returns the windows, sorted, once there are n of them, or once
// none came for quiet (polling: a benchmark's wait, not a test's). The
// second case is a defect, reported beside the round: a settlement whose
// event the withdrawal never got (the outbox's head passed it before it
// committed) is never withdrawn.
func (w *windowLog) wait(ctx context.Context, n int, quiet time.Duration) ([]time.Duration, error) {
	seen, since := -1, time.Now()
	for {
		w.mu.Lock()
		got := len(w.got)
		if got >= n || got == seen && time.Since(since) >= quiet {
			out := append([]time.Duration(nil), w.got...)
			w.mu.Unlock()
			slices.Sort(out)
			return out, nil
		}
		w.mu.Unlock()
		if got != seen {
			seen, since = got, time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
