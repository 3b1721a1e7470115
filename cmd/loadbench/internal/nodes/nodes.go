// Package nodes is loadbench -lnd and -cln: it compares the same internal payments through
// Hearth on the embedded node and on a real node: LND (-lnd) or Core
// Lightning (-cln), Hearth's node of a regtest network it starts
// (network.go); with both, one network after the other. Each node gets a
// fresh database of its own with the same shape: one payer wallet and API
// key per client, 50 payee wallets, and every invoice made beforehand (by
// the node, at the real node for it), each to a payee drawn at random. The
// flat-out rounds alternate between the nodes (embedded first in odd
// rounds, the real node first in even ones), so that the machine's load
// weighs on both alike; then each node pays at the fixed -lnd-rate. On the
// real node, Hearth runs the withdrawal of internally settled invoices
// from the node (core/withdraw) as hearth serve does: it holds the node's
// invoice guard (lnd's HtlcModifier; on Core Lightning, loadbench's own
// executable run by lightningd as its plugin), so that no outside payer
// can pay an invoice settled inside, and cancels those invoices at its
// guarded pace. The delay from each settlement to the node's
// cancel is reported, and a round ends only once the node confirmed every
// cancel of it, so that no round pays for the previous one's cancels.
//
// Then, on the real node alone, the external phase (external.go): Hearth
// pays invoices of each outside peer of the network over HTTP, as its
// node's payments through their channel, with one client and then with
// -ext-clients.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// idleWindow is how long the idle processor time is measured (idleRates).
const idleWindow = 3 * time.Second

// payees is how many payee wallets a node's fixture pays into.
const payees = 50

// Options shape the comparison.
type Options struct {
	Clients      int           // concurrent clients of the internal rounds
	Pool         int           // PostgreSQL connections (0: Hearth's default)
	Rounds       int           // flat-out rounds per node
	Payments     int           // measured payments per flat-out round
	Warmup       int           // payments per round before measuring
	Rate         float64       // payments per second of the fixed-rate round
	RatePayments int           // measured payments of the fixed-rate round
	InFlight     int           // the withdrawal's cancels in flight (0: its default)
	GuardedEvery time.Duration // the withdrawal's gap between cancels while guarded (0: its default)
	ExtPayments  int           // measured payments of each external round (0: no external phase)
	ExtClients   int           // clients of the external rounds after the one-client ones
}

// Run compares the embedded node with each real node of kinds ("lnd",
// "cln"), one network at a time (the other is not running meanwhile), on
// each of databases (comma separated), and prints the rounds on stdout. A
// node whose binaries are missing is skipped, with a word on stderr,
// unless every one is; a database whose comparison fails is said on
// stderr and the others still run.
func Run(ctx context.Context, kinds []string, databases, pgURL string, o Options) error {
	fmt.Printf("loadbench %s: %d clients, %d payees at random, %d interleaved flat-out rounds of %d payments (after %d warm-up) per node, then %d at %.0f/s",
		"-"+strings.Join(kinds, " -"), o.Clients, payees, o.Rounds, o.Payments, o.Warmup, o.RatePayments, o.Rate)
	if o.ExtPayments > 0 {
		fmt.Printf("; external: %d payments to each outside peer with 1 client, then with %d", o.ExtPayments, o.ExtClients)
	}
	fmt.Printf("; GOMAXPROCS %d, %s\n", runtime.GOMAXPROCS(0), machine.Model())
	failed, ran := false, 0
	for _, kind := range kinds {
		began := time.Now()
		net, err := startNet(ctx, kind)
		if errors.Is(err, regtest.ErrNoBinaries) {
			// As the regtest tests skip: make bench runs on a machine
			// without Core Lightning.
			fmt.Fprintf(os.Stderr, "loadbench: %s skipped: %v\n", kind, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("starting the regtest network of %s: %w", kind, err)
		}
		ran++
		fmt.Printf("%s: regtest network up in %s\n", net.title, time.Since(began).Round(time.Second))
		for _, name := range strings.Split(databases, ",") {
			name = strings.TrimSpace(name)
			before := machine.LoadAverage()
			rows, err := compareNodes(ctx, name, pgURL, o, net)
			if err != nil {
				fmt.Fprintf(os.Stderr, "loadbench: %s on %s: %v\n", name, net.title, err)
				failed = true
				continue
			}
			printNodeRows(os.Stdout, name, net.title, rows, before, machine.LoadAverage())
		}
		net.remove()
	}
	if failed {
		return errors.New("a comparison failed")
	}
	if ran == 0 {
		return fmt.Errorf("no node to compare: %w", regtest.ErrNoBinaries)
	}
	return nil
}

// compareNodes runs the comparison on one database: the embedded node
// against net's, then net's external phase.
func compareNodes(ctx context.Context, dbName, pgURL string, o Options, net *realNet) ([]nodeRow, error) {
	var benches []*nodeBench
	defer func() {
		for _, b := range benches {
			b.close()
		}
	}()
	for _, n := range []*realNet{nil, net} {
		began := time.Now()
		b, err := newNodeBench(ctx, dbName, pgURL, o, n)
		benches = append(benches, b) // closed even half made
		if err != nil {
			return nil, fmt.Errorf("%s: preparing: %w", b.kind, err)
		}
		fmt.Printf("%s/%s: prepared in %s\n", dbName, b.kind, time.Since(began).Round(time.Second))
	}
	// What the machine spends idle is not what the payments cost.
	idle, err := measureIdle(ctx, net, benches[1].f.Meter(), idleWindow)
	if err != nil {
		return nil, err
	}
	benches[0].idle, benches[1].idle = idle, idle
	fmt.Printf("%s: idle, the %s network spends %.0f ms of processor time a second, this process %.0f ms, PostgreSQL %.0f ms\n",
		dbName, net.title, 1000*idle.nodes, 1000*idle.self, 1000*idle.pg)
	var rows []nodeRow
	for round := range o.Rounds + 1 {
		order := benches
		if round%2 == 1 {
			order = []*nodeBench{benches[1], benches[0]}
		}
		for _, b := range order {
			name, rate := fmt.Sprintf("round %d flat out", round+1), 0.0
			if round == o.Rounds {
				name, rate = fmt.Sprintf("at %.0f/s", o.Rate), o.Rate
			}
			row, err := b.round(ctx, name, round, rate, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.kind, err)
			}
			rows = append(rows, row)
		}
	}
	ext, err := benches[1].external(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", benches[1].kind, err)
	}
	rows = append(rows, ext...)
	for _, b := range benches {
		if err := b.verify(ctx, o); err != nil {
			return nil, fmt.Errorf("%s: %w", b.kind, err)
		}
	}
	return rows, nil
}
