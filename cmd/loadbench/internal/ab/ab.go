// Package ab is loadbench -ab: two builds of Hearth compared as an
// operator would see them. Each runs as a `hearth serve` process of its
// own on a fresh database (internal/hearthbin), set up and paid over HTTP
// from loadbench's process (internal/operator), in interleaved rounds
// with the order swapped.
package ab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/operator"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// Options shape an A/B run.
type Options struct {
	A, B             string   // a git revision, a hearth binary, or "." (the working tree)
	AEnv, BEnv       []string // KEY=VALUE for A's or B's server alone
	Rounds           int
	Clients          int
	Warmup, Payments int // per closed-loop phase: unmeasured, then measured
	Rate             float64
	RatePayments     int           // measured at Rate
	Quiet            float64       // a phase starts once the processors were busy less than this share of a second …
	QuietWait        time.Duration // … or after this long
	// Fresh starts each round's instances anew, on fresh databases: two
	// instances of one build differed by 16 % over a whole run here
	// (an A/A run, docs/performance.md), which fresh instances turn into
	// noise between rounds instead of a bias of one build.
	Fresh bool
}

// perClient is how many payments each client makes in a round.
func (o Options) perClient() int {
	return (o.Warmup+o.Payments)/o.Clients + o.RatePayments/o.Clients
}

// round is one build's phases in one round.
type round struct {
	closed, fixed load.Result
	turn          int // the closed-loop phase's place in the run, from 0
}

// instance is one build's server and the load on it.
type instance struct {
	srv  *hearthbin.Server
	load *operator.Load
}

// Run runs the A/B comparison on each of databases (comma separated) and
// prints it on stdout. In round r both builds run a closed-loop phase and
// then a phase at the fixed rate, B first in odd rounds; the build not
// being measured is stopped (SIGSTOP), so only one runs at a time, and
// each phase starts when the machine is quiet.
func Run(ctx context.Context, databases, pgURL string, o Options) error {
	builds := make([]hearthbin.Build, 2)
	for i, spec := range []string{o.A, o.B} {
		b, err := hearthbin.Make(ctx, string(rune('A'+i)), spec)
		if err != nil {
			return fmt.Errorf("build %c: %w", 'A'+i, err)
		}
		defer b.Remove()
		b.Env = [][]string{o.AEnv, o.BEnv}[i]
		if len(b.Env) > 0 {
			b.Name += " with " + strings.Join(b.Env, " ")
		}
		builds[i] = b
	}
	fmt.Printf("loadbench -ab: A = %s, B = %s; %d clients paying %d payees at random over HTTP from another process; "+
		"%d rounds of %d payments flat out (after %d) and %d at %.0f/s per build, %s; GOMAXPROCS %d of this process, %s\n",
		builds[0].Name, builds[1].Name, o.Clients, o.Clients, o.Rounds, o.Payments, o.Warmup, o.RatePayments, o.Rate,
		map[bool]string{true: "fresh instances each round", false: "the same two instances every round"}[o.Fresh],
		runtime.GOMAXPROCS(0), machine.Model())
	failed := false
	for n, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		rounds, err := database(ctx, name, pgURL, o, builds, n)
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

// database runs the rounds on one database, the n-th, and returns each
// build's. With o.Fresh each round has instances of its own, started in
// the round's order and stopped after it; else both instances serve
// every round.
func database(ctx context.Context, name, pgURL string, o Options, builds []hearthbin.Build, n int) ([2][]round, error) {
	var rounds [2][]round
	pg := machine.Meter{}
	if name == "postgres" {
		pg = machine.PostgresMeter(ctx, pgURL)
	}
	made := 0 // instances started, naming their databases
	start := func(i, rounds int) (*instance, error) {
		b := builds[i]
		began := time.Now()
		srv, err := hearthbin.Start(ctx, b, name, pgURL, 1000*n+made)
		made++
		if err != nil {
			return nil, err
		}
		l, err := operator.New(ctx, srv, o.Clients, rounds*o.perClient(), pg)
		if err != nil {
			srv.Stop()
			return nil, fmt.Errorf("%s: setting up: %w; its log: %s", b.Label, err, srv.Log())
		}
		if err := srv.Settle(ctx); err != nil {
			l.Close()
			srv.Stop()
			return nil, err
		}
		srv.Pause()
		fmt.Printf("%s %s: %s up, %d wallets, %d invoices, in %s\n", name, b.Label, b.Name, 2*o.Clients, len(l.Pool()), time.Since(began).Round(time.Second))
		return &instance{srv: srv, load: l}, nil
	}
	// finish checks the books of the instances and stops them.
	finish := func(insts []*instance) error {
		var first error
		for _, in := range insts {
			if in == nil {
				continue
			}
			in.srv.Resume()
			if err := in.load.Verify(ctx); err != nil && first == nil {
				first = err
			}
			in.load.Close()
			in.srv.Stop()
		}
		return first
	}
	insts := make([]*instance, 2)
	if !o.Fresh {
		for i := range builds {
			in, err := start(i, o.Rounds)
			if err != nil {
				finish(insts) //nolint:errcheck // the set-up's error is the one to say
				return rounds, err
			}
			insts[i] = in
		}
	}
	for r := range o.Rounds {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		if o.Fresh {
			insts = make([]*instance, 2)
			for _, i := range order {
				in, err := start(i, 1)
				if err != nil {
					finish(insts) //nolint:errcheck // the set-up's error is the one to say
					return rounds, err
				}
				insts[i] = in
			}
		}
		got, err := roundOf(r, order, insts, builds, o)
		if err != nil {
			finish(insts) //nolint:errcheck // the phase's error is the one to say
			return rounds, err
		}
		for i := range 2 {
			rounds[i] = append(rounds[i], got[i])
		}
		if o.Fresh {
			if err := finish(insts); err != nil {
				return rounds, err
			}
		}
	}
	if !o.Fresh {
		return rounds, finish(insts)
	}
	return rounds, nil
}

// roundOf runs round r: both builds' closed-loop phases in order, then
// their phases at the fixed rate.
func roundOf(r int, order []int, insts []*instance, builds []hearthbin.Build, o Options) ([2]round, error) {
	var got [2]round
	for k, i := range order {
		got[i].turn = 2*r + k
		res, err := insts[i].measured(fmt.Sprintf("round %d %s flat out", r+1, builds[i].Label), o.Warmup/o.Clients, o.Payments/o.Clients, 0, o)
		if err != nil {
			return got, err
		}
		got[i].closed = res
	}
	for _, i := range order {
		res, err := insts[i].measured(fmt.Sprintf("round %d %s at %.0f/s", r+1, builds[i].Label, o.Rate), 0, o.RatePayments/o.Clients, o.Rate, o)
		if err != nil {
			return got, err
		}
		got[i].fixed = res
	}
	return got, nil
}

// measured runs one phase of in's build once the machine is quiet, with
// the build's process running only for it, and prints its line.
func (in *instance) measured(name string, warm, measured int, rate float64, o Options) (load.Result, error) {
	avg := machine.WaitQuiet(o.Quiet, o.QuietWait)
	in.srv.Resume()
	r, err := in.load.Phase(name, warm, measured, rate)
	in.srv.Pause()
	if err != nil {
		return r, fmt.Errorf("%s: %w; its log: %s", name, err, in.srv.Log())
	}
	fmt.Printf("  %-26s load %.2f  %7.0f/s  p50 %9s  p99 %9s  cpu µs/payment %s\n", name, avg, r.Rate(),
		stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU))
	return r, nil
}

// printAB prints each build's median figures over the rounds, and B's
// against A's: the ratio of the medians and the median of the rounds'
// ratios.
func printAB(w io.Writer, db string, builds []hearthbin.Build, rounds [2][]round) {
	type figure struct {
		name string
		of   func(round) float64
		unit string
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	figures := []figure{
		{"closed loop, payments/s", func(r round) float64 { return r.closed.Rate() }, "/s"},
		{"p99 closed loop", func(r round) float64 { return ms(r.closed.Percentile(99)) }, " ms"},
		{"p99 at the fixed rate", func(r round) float64 { return ms(r.fixed.Percentile(99)) }, " ms"},
		{"p50 at the fixed rate", func(r round) float64 { return ms(r.fixed.Percentile(50)) }, " ms"},
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
			fmt.Fprintf(w, "  %s %s%s (%s)", b.Label, stats.Figure(med[i]), f.unit, stats.JoinFigures(vals))
		}
		ratios := make([]float64, len(rounds[0]))
		for k := range ratios {
			ratios[k] = f.of(rounds[1][k]) / f.of(rounds[0][k])
		}
		fmt.Fprintf(w, "  B/A %.2f (rounds' median %.2f)\n", med[1]/med[0], stats.Median(ratios))
	}
	fmt.Fprintln(w)
}
