package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// abOptions shape an A/B run (-ab): two builds of Hearth, each a `hearth
// serve` process of its own on a fresh database, driven over HTTP from this
// process by an operator's workload (abload.go), in interleaved rounds.
type abOptions struct {
	a, b             string   // a git revision, a hearth binary, or "." (the working tree)
	aEnv, bEnv       []string // KEY=VALUE for A's or B's server alone
	rounds           int
	clients          int
	warmup, payments int // per closed-loop phase: unmeasured, then measured
	rate             float64
	ratePayments     int           // measured at rate
	quiet            float64       // a phase starts once the processors were busy less than this share of a second …
	quietWait        time.Duration // … or after this long
	// fresh starts each round's instances anew, on fresh databases: two
	// instances of one build differed by 16 % over a whole run here
	// (an A/A run, docs/performance.md), which fresh instances turn into
	// noise between rounds instead of a bias of one build.
	fresh bool
}

// perClient is how many payments each client makes in a round.
func (o abOptions) perClient() int {
	return (o.warmup+o.payments)/o.clients + o.ratePayments/o.clients
}

// abRound is one build's phases in one round.
type abRound struct {
	closed, fixed load.Result
	turn          int // the closed-loop phase's place in the run, from 0
}

// abTest runs the A/B comparison on each database. In round r both builds
// run a closed-loop phase and then a phase at the fixed rate, B first in
// odd rounds; the build not being measured is stopped (SIGSTOP), so only
// one runs at a time, and each phase starts when the machine is quiet.
func abTest(ctx context.Context, databases, pgURL string, o abOptions) error {
	builds := make([]build, 2)
	for i, spec := range []string{o.a, o.b} {
		b, err := buildHearth(ctx, string(rune('A'+i)), spec)
		if err != nil {
			return fmt.Errorf("build %c: %w", 'A'+i, err)
		}
		defer b.remove()
		b.env = [][]string{o.aEnv, o.bEnv}[i]
		if len(b.env) > 0 {
			b.name += " with " + strings.Join(b.env, " ")
		}
		builds[i] = b
	}
	fmt.Printf("loadbench -ab: A = %s, B = %s; %d clients paying %d payees at random over HTTP from another process; "+
		"%d rounds of %d payments flat out (after %d) and %d at %.0f/s per build, %s; GOMAXPROCS %d of this process, %s\n",
		builds[0].name, builds[1].name, o.clients, o.clients, o.rounds, o.payments, o.warmup, o.ratePayments, o.rate,
		map[bool]string{true: "fresh instances each round", false: "the same two instances every round"}[o.fresh],
		runtime.GOMAXPROCS(0), machine.Model())
	failed := false
	for n, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		rounds, err := abDatabase(ctx, name, pgURL, o, builds, n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbench -ab: %s: %v\n", name, err)
			failed = true
			continue
		}
		printAB(os.Stdout, name, builds, rounds)
	}
	if failed {
		return errors.New("a database's comparison failed")
	}
	return nil
}

// abDatabase runs the rounds on one database and returns each build's.
// With o.fresh each round has instances of its own, started in the
// round's order and stopped after it; else both instances serve every
// round.
func abDatabase(ctx context.Context, name, pgURL string, o abOptions, builds []build, n int) ([2][]abRound, error) {
	var rounds [2][]abRound
	pg := machine.Meter{}
	if name == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	made := 0 // instances started, naming their databases
	start := func(i, rounds int) (*operatorLoad, error) {
		b := builds[i]
		began := time.Now()
		inst, err := startServer(ctx, b, name, pgURL, 1000*n+made)
		made++
		if err != nil {
			return nil, err
		}
		ro := o
		ro.rounds = rounds
		l, err := newOperatorLoad(ctx, inst, ro, pg)
		if err != nil {
			inst.stop()
			return nil, fmt.Errorf("%s: setting up: %w; its log: %s", b.label, err, inst.logTail)
		}
		if err := inst.settle(ctx); err != nil {
			l.close()
			inst.stop()
			return nil, err
		}
		inst.pause()
		fmt.Printf("%s %s: %s up, %d wallets, %d invoices, in %s\n", name, b.label, b.name, 2*o.clients, len(l.pool), time.Since(began).Round(time.Second))
		return l, nil
	}
	// finish checks the books of loads' instances and stops them.
	finish := func(loads []*operatorLoad) error {
		var first error
		for _, l := range loads {
			if l == nil {
				continue
			}
			l.inst.resume()
			if err := l.verify(ctx); err != nil && first == nil {
				first = err
			}
			l.close()
			l.inst.stop()
		}
		return first
	}
	loads := make([]*operatorLoad, 2)
	if !o.fresh {
		for i := range builds {
			l, err := start(i, o.rounds)
			if err != nil {
				finish(loads) //nolint:errcheck // the set-up's error is the one to say
				return rounds, err
			}
			loads[i] = l
		}
	}
	for r := range o.rounds {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		if o.fresh {
			loads = make([]*operatorLoad, 2)
			for _, i := range order {
				l, err := start(i, 1)
				if err != nil {
					finish(loads) //nolint:errcheck // the set-up's error is the one to say
					return rounds, err
				}
				loads[i] = l
			}
		}
		got, err := abRoundOf(r, order, loads, builds, o)
		if err != nil {
			finish(loads) //nolint:errcheck // the phase's error is the one to say
			return rounds, err
		}
		for i := range 2 {
			rounds[i] = append(rounds[i], got[i])
		}
		if o.fresh {
			if err := finish(loads); err != nil {
				return rounds, err
			}
		}
	}
	if !o.fresh {
		return rounds, finish(loads)
	}
	return rounds, nil
}

// abRoundOf runs round r: both builds' closed-loop phases in order, then
// their phases at the fixed rate.
func abRoundOf(r int, order []int, loads []*operatorLoad, builds []build, o abOptions) ([2]abRound, error) {
	var got [2]abRound
	for k, i := range order {
		got[i].turn = 2*r + k
		res, err := loads[i].measured(fmt.Sprintf("round %d %s flat out", r+1, builds[i].label), o.warmup/o.clients, o.payments/o.clients, 0, o)
		if err != nil {
			return got, err
		}
		got[i].closed = res
	}
	for _, i := range order {
		res, err := loads[i].measured(fmt.Sprintf("round %d %s at %.0f/s", r+1, builds[i].label, o.rate), 0, o.ratePayments/o.clients, o.rate, o)
		if err != nil {
			return got, err
		}
		got[i].fixed = res
	}
	return got, nil
}

// measured runs one phase of l's build once the machine is quiet, with the
// build's process running only for it, and prints its line.
func (l *operatorLoad) measured(name string, warm, measured int, rate float64, o abOptions) (load.Result, error) {
	load := machine.WaitQuiet(o.quiet, o.quietWait)
	l.inst.resume()
	r, err := l.phase(name, warm, measured, rate)
	l.inst.pause()
	if err != nil {
		return r, fmt.Errorf("%s: %w; its log: %s", name, err, l.inst.logTail)
	}
	fmt.Printf("  %-26s load %.2f  %7.0f/s  p50 %9s  p99 %9s  cpu µs/payment %s\n", name, load, r.Rate(),
		stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU))
	return r, nil
}

// pause stops the server's process (SIGSTOP) while the other build is
// measured; resume lets it go on.
func (s *instance) pause()  { s.cmd.Process.Signal(syscall.SIGSTOP) } //nolint:errcheck // it may have exited
func (s *instance) resume() { s.cmd.Process.Signal(syscall.SIGCONT) } //nolint:errcheck // it may have exited

// printAB prints each build's median figures over the rounds, and B's
// against A's: the ratio of the medians and the median of the rounds'
// ratios.
func printAB(w io.Writer, db string, builds []build, rounds [2][]abRound) {
	type figure struct {
		name string
		of   func(abRound) float64
		unit string
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	figures := []figure{
		{"closed loop, payments/s", func(r abRound) float64 { return r.closed.Rate() }, "/s"},
		{"p99 closed loop", func(r abRound) float64 { return ms(r.closed.Percentile(99)) }, " ms"},
		{"p99 at the fixed rate", func(r abRound) float64 { return ms(r.fixed.Percentile(99)) }, " ms"},
		{"p50 at the fixed rate", func(r abRound) float64 { return ms(r.fixed.Percentile(50)) }, " ms"},
	}
	fmt.Fprintf(w, "\n%s, %d rounds: median (each round)\n", db, len(rounds[0]))
	for _, f := range figures {
		fmt.Fprintf(w, "  %-24s", f.name)
		med := [2]float64{}
		for i, b := range builds {
			vals := make([]float64, len(rounds[i]))
			for k, r := range rounds[i] {
				vals[k] = f.of(r)
			}
			med[i] = stats.Median(vals)
			fmt.Fprintf(w, "  %s %s%s (%s)", b.label, stats.Figure(med[i]), f.unit, stats.JoinFigures(vals))
		}
		ratios := make([]float64, len(rounds[0]))
		for k := range ratios {
			ratios[k] = f.of(rounds[1][k]) / f.of(rounds[0][k])
		}
		fmt.Fprintf(w, "  B/A %.2f (rounds' median %.2f)\n", med[1]/med[0], stats.Median(ratios))
	}
	fmt.Fprintln(w)
}

// envPairs splits -ab-a-env's or -ab-b-env's comma-separated KEY=VALUE
// pairs; a pair without "=" is kept, and refused by the caller.
func envPairs(s string) []string {
	var out []string
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv != "" {
			out = append(out, kv)
		}
	}
	return out
}
