package outboxcost

import (
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// round is a round of n payments in a second that cost cpu in all.
func round(on bool, n int, cpu time.Duration) costRound {
	r := costRound{outbox: on, Result: load.Result{Name: outboxName(on), Elapsed: time.Second, CPU: machine.Reading{Self: cpu}}}
	for range n {
		r.Latencies = append(r.Latencies, time.Millisecond)
	}
	return r
}

// TestPrintCostRounds: a line per round, then the outbox's change pair by
// pair (on against off whichever ran first), its median, and the 95 %
// interval once there are pairs enough for one.
func TestPrintCostRounds(t *testing.T) {
	var out strings.Builder
	// Pairs on/off: 900 against 1000 (-10 %), off first 1000 against 1100
	// (+10 %), 950 against 1000 (-5 %); the CPU per payment 2 ms on, 1 ms
	// off in each.
	printCostRounds(&out, "sqlite", []costRound{
		round(true, 900, 1800*time.Millisecond), round(false, 1000, time.Second),
		round(false, 1000, time.Second), round(true, 1100, 2200*time.Millisecond),
		round(true, 950, 1900*time.Millisecond), round(false, 1000, time.Second),
	})
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines, want a heading, 6 rounds and the summary:\n%s", len(lines), out.String())
	}
	if f := strings.Fields(lines[2]); strings.Join(f, " ") != "sqlite 2 outbox off 1000 1ms 1ms 1000" {
		t.Errorf("round 2: %q", f)
	}
	want := "sqlite: payments/s with the outbox against without, pair by pair: -10 %, +10 %, -5 %; median -5.0 % " +
		"(too few pairs for a 95 % interval; medians 950/s against 1000/s); CPU per payment median +100.0 %"
	if lines[7] != want {
		t.Errorf("summary:\n%s\nwant\n%s", lines[7], want)
	}
	// Six pairs make an interval: the extremes.
	var rounds []costRound
	for _, n := range []int{800, 900, 1000, 1050, 1100, 1200} {
		rounds = append(rounds, round(true, n, time.Second), round(false, 1000, time.Second))
	}
	out.Reset()
	printCostRounds(&out, "postgres", rounds)
	if !strings.Contains(out.String(), "95 % interval -20.0 to +20.0 %") {
		t.Errorf("six pairs, no interval from -20 to +20 %%:\n%s", out.String())
	}
}
