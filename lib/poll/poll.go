// Package poll waits in tests for a condition that another goroutine or
// process brings about: it checks again every few milliseconds until the
// condition holds or a deadline passes, instead of sleeping a guessed time.
package poll

import (
	"testing"
	"time"
)

// every is how often a condition is checked again.
const every = 20 * time.Millisecond

// Until calls cond until it returns nil, and fails the test with cond's
// last error when timeout passes first.
func Until(t testing.TB, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		err := cond()
		if err == nil {
			return
		}
		select {
		case <-deadline.C:
			t.Fatalf("condition not met after %s: %v", timeout, err)
		case <-tick.C:
		}
	}
}
