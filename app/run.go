package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/withdraw"
)

// outsidePayer is a node that pays this instance's invoices as an
// outside payer would (the embedded node).
type outsidePayer interface {
	PayAsOutsider(ctx context.Context, bolt11 string) error
}

// Start runs the application's background work until Close, as `hearth
// serve` runs it: the ledger follows the node (one replica at a time);
// the settlements of the invoices that the embedded node pays as an
// outside payer are applied here; the outbox and its live stream run;
// the installed plugins are loaded, the built-ins' background work runs
// (one replica at a time, but each replica's work on its own state in
// every replica) and the events reach the plugins; on a real node,
// internally settled invoices are withdrawn from it; backups are written
// when scheduled. ctx bounds the start alone; Stop, or Close, ends the
// work.
func (a *App) Start(ctx context.Context) error {
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	a.cancel = cancel
	a.runMetrics(run)
	// A replica alone on its database pays internal batches without their
	// up-front locks (core/ledger/alone.go); one that cannot join keeps
	// them, which is always safe.
	if err := a.Ledger.Join(run); err != nil {
		a.Log.WarnContext(ctx, "joining the ledger's replicas: batches keep their up-front locks", "err", err)
	}
	a.goRun("replicas", func() { a.Ledger.FollowReplicas(run) })
	a.goRun("node streams", func() { a.Ledger.Run(run) }) //nolint:errcheck // ends with run
	if err := a.consumeOutsidePayments(run); err != nil {
		return err
	}
	if a.Outbox != nil {
		a.goRun("outbox", func() { a.Outbox.Run(run) }) //nolint:errcheck // ends with run
		a.goRun("live stream", func() { a.Hub.Run(run) })
		// On a real node, the invoices settled inside the instance are
		// withdrawn from the node off the payer's path (the embedded
		// node's invoices live in the database: nothing to withdraw).
		if _, local := a.Node.(ledger.Local); !local {
			a.goRun("withdrawal", func() { withdraw.Run(run, a.Outbox, a.Node, a.Ledger, withdraw.Config{Log: a.Log}) })
		}
	}
	if err := a.Registry.Load(ctx); err != nil {
		return err
	}
	a.startBackground(run)
	if a.Outbox != nil {
		a.goRun("built-ins' leads", func() { a.Registry.RunBuiltins(run, a.Outbox) })
		a.goRun("durable sender", func() { a.HostAPI.Sender().Run(run, a.Outbox) })
		if !a.opts.NoDelivery {
			a.goRun("plugins' events", func() { a.Registry.Run(run, a.Outbox) })
		}
	}
	return nil
}

// consumeOutsidePayments applies, in this process, the settlements of the
// invoices that the embedded node pays as an outside payer here (POST
// /v1/lightning-node/pay): they exist only in this process, so every
// replica applies its own, whether or not it holds the node-stream lock
// (the holder's Run subscribes too; the node hands each settlement to the
// first subscriber, this one, subscribed before Start returns).
func (a *App) consumeOutsidePayments(ctx context.Context) error {
	if _, ok := a.Node.(outsidePayer); !ok {
		return nil
	}
	ch, err := a.Node.SubscribeInvoices(ctx)
	if err != nil {
		return fmt.Errorf("subscribing to the embedded node: %w", err)
	}
	a.goRun("outside payments", func() { a.Ledger.Consume(ctx, ch) })
	return nil
}

// task is background work that Start runs: done is closed when it
// returns.
type task struct {
	name string
	done chan struct{}
}

// goRun runs f, the work called name, until it returns; Stop waits for it.
func (a *App) goRun(name string, f func()) {
	t := task{name: name, done: make(chan struct{})}
	a.running = append(a.running, t)
	go func() {
		defer close(t.done)
		f()
	}()
}

// Stop ends the background work that Start runs and waits for it until
// ctx ends. The live streams end first; then every part's context ends,
// and as its work returns each event consumer saves its cursor and each
// lead (the node streams, the built-ins', the withdrawal, the backups)
// gives up its lock, so that another replica takes over at its next try.
// If ctx ends first, Stop returns an error that names the work still
// running. The database stays open; Close releases the rest.
func (a *App) Stop(ctx context.Context) error {
	if a.Hub != nil {
		a.Hub.Close() // the streams end, or a server's shutdown would wait for them
	}
	if a.cancel == nil {
		return nil
	}
	a.cancel()
	for _, t := range a.running {
		select {
		case <-t.done:
		case <-ctx.Done():
			return fmt.Errorf("background work still running: %s: %w", strings.Join(a.Running(), ", "), ctx.Err())
		}
	}
	return nil
}

// Running names the background work that Start ran and that has not
// returned yet.
func (a *App) Running() []string {
	var names []string
	for _, t := range a.running {
		select {
		case <-t.done:
		default:
			names = append(names, t.name)
		}
	}
	return names
}
