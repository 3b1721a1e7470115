package load

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// TestDriveClosedLoop: every client makes its warm-up payments and then
// its measured ones, in order; only the measured ones are timed, sorted;
// the meter is read once before and once after them, and the result
// holds the difference.
func TestDriveClosedLoop(t *testing.T) {
	const clients, warm, measured = 3, 2, 5
	var mu sync.Mutex
	seen := make([][]int, clients)
	var reads atomic.Int64
	meter := func() machine.Reading {
		n := reads.Add(1)
		return machine.Reading{Self: time.Duration(n) * time.Second, PG: time.Duration(10*n) * time.Millisecond}
	}
	r, err := Drive("flat out", clients, warm, measured, 0, meter, func(i, k int) error {
		mu.Lock()
		seen[i] = append(seen[i], k)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, ks := range seen {
		if want := []int{0, 1, 2, 3, 4, 5, 6}; !slices.Equal(ks, want) {
			t.Errorf("client %d paid %v, want %v", i, ks, want)
		}
	}
	if len(r.Latencies) != clients*measured || !slices.IsSorted(r.Latencies) {
		t.Errorf("%d latencies (sorted: %v), want %d sorted", len(r.Latencies), slices.IsSorted(r.Latencies), clients*measured)
	}
	if r.Latencies[0] < time.Millisecond {
		t.Errorf("a payment of 1 ms took %v", r.Latencies[0])
	}
	if r.Name != "flat out" || r.FixedRate || r.Elapsed <= 0 {
		t.Errorf("result %q fixed %v elapsed %v", r.Name, r.FixedRate, r.Elapsed)
	}
	if reads.Load() != 2 || r.CPU != (machine.Reading{Self: time.Second, PG: 10 * time.Millisecond}) {
		t.Errorf("meter read %d times, CPU %+v; want 2 reads a second and 10 ms apart", reads.Load(), r.CPU)
	}
}

// TestDriveFixedRate: at a fixed rate the payments are spread over the
// schedule (2 clients at 100/s: 10 payments take about 0.1 s however fast
// each is), and a payment's latency counts from when it was due, so a
// server that stalls shows it on every payment queued behind.
func TestDriveFixedRate(t *testing.T) {
	meter := func() machine.Reading { return machine.Reading{} }
	r, err := Drive("at 100/s", 2, 0, 5, 100, meter, func(int, int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !r.FixedRate || len(r.Latencies) != 10 {
		t.Fatalf("fixed %v, %d latencies", r.FixedRate, len(r.Latencies))
	}
	if r.Elapsed < 75*time.Millisecond {
		t.Errorf("10 payments at 100/s took %v, want about 90 ms at least", r.Elapsed)
	}
	// One client stalls 60 ms on its first payment: its next ones, due
	// 20 ms apart, are late by about 40 and 20 ms.
	r, err = Drive("stalled", 1, 0, 4, 50, meter, func(_, k int) error {
		if k == 0 {
			time.Sleep(60 * time.Millisecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Percentile(50) < 15*time.Millisecond || r.Percentile(100) < 55*time.Millisecond {
		t.Errorf("latencies after a stall %v: counted from the answer, not from when each was due", r.Latencies)
	}
}

// TestDriveError: a client's error names the client and ends the run
// with it, in the warm-up as in the measured payments.
func TestDriveError(t *testing.T) {
	meter := func() machine.Reading { return machine.Reading{} }
	boom := errors.New("boom")
	for _, failAt := range []int{0, 3} {
		_, err := Drive("x", 4, 2, 3, 0, meter, func(i, k int) error {
			if i == 2 && k == failAt {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "client 2: ") {
			t.Errorf("failing at payment %d: %v, want client 2's boom", failAt, err)
		}
	}
}
