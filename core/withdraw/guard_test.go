package withdraw

import (
	"context"
	"testing"
	"time"
)

// While the guard is up, no cancel starts before its turn: n cancels from
// the guard's start take at least n turns; once it is down, they wait for
// nothing but ctx.
func TestPaceSpacesCancelsOnlyWhileGuarded(t *testing.T) {
	ctx := context.Background()
	p := &pace{every: 40 * time.Millisecond}
	p.set(true)
	start := time.Now()
	for range 3 {
		if !p.wait(ctx) {
			t.Fatal("wait gave up with ctx alive")
		}
	}
	if took := time.Since(start); took < 3*p.every {
		t.Fatalf("3 guarded cancels started within %v, want at least %v", took, 3*p.every)
	}

	p.set(false)
	done, cancel := context.WithCancel(ctx)
	cancel()
	if p.wait(done) {
		t.Fatal("wait went on with ctx ended")
	}
	if !p.wait(ctx) {
		t.Fatal("an unguarded wait gave up")
	}

	p.set(true)
	if p.wait(done) {
		t.Fatal("a guarded wait went on with ctx ended")
	}
}
