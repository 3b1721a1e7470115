// Command loadbench measures internal payments: Hearth's HTTP API on
// loopback against the bare database doing the same writes, side by side,
// on SQLite and on PostgreSQL.
//
// This file and flags.go read the command line and hand the run to the
// package of its mode, under internal/:
//
//   - phases: the default run. For each database one fresh database
//     (fixture: payer wallets, one per client with its own API key, payee
//     wallets and every invoice, and a Hearth server in this process), then
//     the bare database, Hearth over HTTP flat out and Hearth at -rate; on
//     PostgreSQL then one replica against two over a ring of wallets, with
//     the deadlocks PostgreSQL broke.
//   - outboxcost (-outbox-rounds): rounds with the outbox on and off.
//   - nodes (-lnd, -cln): the embedded node against a real node's regtest
//     network, then payments out through its channels.
//   - ab (-ab): two builds as `hearth serve` processes of their own
//     (hearthbin), set up and paid over HTTP from this process (operator),
//     in interleaved rounds with the order swapped.
//   - signals (-signals): how soon a payment's event reaches a webhook and
//     the admin's stream.
//   - scale (-scale): lists, checks, backup and restore on books of
//     millions of payments, seeded once and kept.
//
// They share the clients' side (load), the machine's readings (machine)
// and the arithmetic of the figures (stats).
//
//	go run ./cmd/loadbench -clients 50 -payments 20000
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/ab"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/nodes"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/outboxcost"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/phases"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/scale"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/signals"
)

func main() {
	c := register(flag.CommandLine)
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err := c.check(); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(2)
	}
	os.Exit(run(context.Background(), c))
}

// run runs c's mode and returns the process's exit code: 0, or 1 once
// what failed is said on stderr.
func run(ctx context.Context, c *config) int {
	var err error
	switch c.mode() {
	case modeSignals:
		err = signals.Run(ctx, c.databases, c.pgURL, c.signals())
	case modeAB:
		err = ab.Run(ctx, c.databases, c.pgURL, c.ab())
	case modeScale:
		if err := scale.Run(ctx, c.databases, c.pgURL, c.clients, c.scale); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench -scale:", err)
			return 1
		}
		return 0
	case modeNodes:
		err = nodes.Run(ctx, c.nodeKinds(), c.databases, c.pgURL, c.nodes())
	case modeOutbox:
		err = outboxcost.Run(ctx, c.databases, c.pgURL, c.phases().Options)
	default:
		if phases.Run(ctx, c.databases, c.pgURL, c.phases()) != nil {
			return 1 // each database's error is said as it comes
		}
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		return 1
	}
	return 0
}
