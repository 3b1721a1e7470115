package nodes

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestWindowLogWait returns the windows sorted once there are as many as
// asked; with fewer, once none came for the quiet time, and the caller
// counts the missing ones; reset starts afresh.
func TestWindowLogWait(t *testing.T) {
	ctx := context.Background()
	var w windowLog
	go func() {
		for _, d := range []time.Duration{3, 1, 2} {
			time.Sleep(5 * time.Millisecond)
			w.add(d)
		}
	}()
	got, err := w.wait(ctx, 3, time.Minute)
	if err != nil || !slices.Equal(got, []time.Duration{1, 2, 3}) {
		t.Fatalf("wait for 3: %v, %v", got, err)
	}
	w.reset()
	w.add(7)
	began := time.Now()
	got, err = w.wait(ctx, 5, 50*time.Millisecond)
	if err != nil || !slices.Equal(got, []time.Duration{7}) {
		t.Fatalf("wait for 5 of which 1 came: %v, %v", got, err)
	}
	if took := time.Since(began); took < 50*time.Millisecond || took > 5*time.Second {
		t.Errorf("gave up after %v, want the quiet 50ms", took)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.wait(cancelled, 5, time.Minute); err == nil {
		t.Error("a cancelled wait returned no error")
	}
}
