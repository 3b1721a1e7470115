package ab

import (
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
)

// result is n payments in a second, the latencies 1 … n ms.
func result(n int) load.Result {
	r := load.Result{Elapsed: time.Second}
	for i := range n {
		r.Latencies = append(r.Latencies, time.Duration(i+1)*time.Millisecond)
	}
	return r
}

// TestPrintAB: each build's median of each figure with the rounds'
// values, and B against A both as the ratio of the medians and as the
// median of the rounds' own ratios, which differ when the rounds do.
func TestPrintAB(t *testing.T) {
	builds := []hearthbin.Build{{Label: "A"}, {Label: "B"}}
	a := []round{{closed: result(1000), fixed: result(100)}, {closed: result(2000), fixed: result(100)}, {closed: result(3000), fixed: result(100)}}
	b := []round{{closed: result(1500), fixed: result(50)}, {closed: result(1000), fixed: result(50)}, {closed: result(6000), fixed: result(50)}}
	var out strings.Builder
	printAB(&out, "postgres", builds, [2][]round{a, b})
	got := out.String()
	for _, want := range []string{
		"\npostgres, 3 rounds: median (each round)\n",
		// rounds' ratios 1.5, 0.5, 2: median 1.5; medians 1500 against 2000.
		"  closed loop, payments/s   A 2000/s (1000 · 2000 · 3000)  B 1500/s (1500 · 1000 · 6000)  B/A 0.75 (rounds' median 1.50)\n",
		// p99 of 1 … 100 ms is 99 ms, of 1 … 50 ms 50 ms.
		"  p99 at the fixed rate     A 99.00 ms (99.00 · 99.00 · 99.00)  B 50.00 ms (50.00 · 50.00 · 50.00)  B/A 0.51 (rounds' median 0.51)\n",
		"  p50 at the fixed rate     A 50.00 ms (50.00 · 50.00 · 50.00)  B 25.00 ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
