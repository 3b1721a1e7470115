package wasm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestCPUShareWaitsOutItsDebt: a share out of debt lets a call start at
// once; one in debt waits until its rate has repaid it, or its context
// ends; and it saves up no more than its burst.
func TestCPUShareWaitsOutItsDebt(t *testing.T) {
	t.Parallel()
	const burst = 10 * time.Millisecond
	s := newCPUShare(0.5, burst) // half a CPU: 20 ms of debt take 40 ms
	ctx := context.Background()
	start := time.Now()
	if err := s.take(ctx); err != nil || time.Since(start) > 5*time.Millisecond {
		t.Fatalf("a full share: %v after %s", err, time.Since(start))
	}
	s.charge(burst + 20*time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	defer cancel()
	if err := s.take(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("in debt, with 5 ms to wait: %v", err)
	}
	start = time.Now()
	if err := s.take(ctx); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 25*time.Millisecond {
		t.Fatalf("20 ms of debt at half a CPU repaid in %s", waited)
	}
	time.Sleep(100 * time.Millisecond) // 50 ms accrue, burst caps it at 10 ms
	s.mu.Lock()
	s.fill()
	have := s.tokens
	s.mu.Unlock()
	if have != burst {
		t.Fatalf("saved up %s, want the burst %s", have, burst)
	}
}
