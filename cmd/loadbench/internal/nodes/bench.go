package nodes

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// nodeBench is one node's fixture.
type nodeBench struct {
	kind    string   // "embedded", or the real node's backend ("lnd", "cln")
	net     *realNet // nil on the embedded node
	db      *store.DB
	app     *app.App
	node    ledger.Node
	f       *fixture.Fixture
	closeDB func()
	windows *windowLog     // a real node only
	stop    func()         // stops the withdrawal and the ledger's following of the node
	ext     *externalPhase // a real node's, with -ext-payments
	idle    idleRates
}

// newNodeBench prepares a fresh database of dbName and Hearth over the
// embedded node (net nil) or net's node. It returns a bench to close even
// with an error, but for one of opening the database.
func newNodeBench(ctx context.Context, dbName, pgURL string, o Options, net *realNet) (*nodeBench, error) {
	kind := "embedded"
	if net != nil {
		kind = net.kind
	}
	b := &nodeBench{kind: kind, net: net, closeDB: func() {}, stop: func() {}}
	db, closeDB, err := fixture.OpenDB(ctx, dbName, pgURL, o.Pool)
	if err != nil {
		return b, err
	}
	b.db, b.closeDB = db, closeDB
	if net == nil {
		b.node, err = embedded.New(ctx, db, "regtest")
	} else {
		b.node, err = net.backend()
		b.windows = &windowLog{}
	}
	if err != nil {
		b.node = nil // nothing to close
		return b, fmt.Errorf("the node: %w", err)
	}
	cfg := config.Default()
	cfg.Node.Backend = kind // what the application runs beside a real node (the withdrawal, below)
	if b.app, err = app.New(ctx, cfg, db, app.Options{Node: b.node, NoWasm: true}); err != nil {
		return b, fmt.Errorf("starting the application: %w", err)
	}
	per, ratePer := o.perClient(o.Payments), o.perClient(o.RatePayments)
	fo := fixture.Options{Clients: o.Clients, Pool: o.Pool, Payments: o.Payments, Warmup: o.Warmup}
	f := fixture.NewOn(ctx, db, b.app, fo, o.Rounds+1, int64(o.Rounds*per+ratePer)*load.PaymentMsat)
	b.f = f
	for i := range o.Clients {
		if err := f.AddPayer(ctx, i); err != nil {
			return b, err
		}
	}
	for i := range payees {
		if err := f.AddPayee(ctx, i); err != nil {
			return b, err
		}
	}
	if err := f.IssueRandom(ctx, per, ratePer); err != nil {
		return b, err
	}
	if net != nil {
		if err := b.prepareExternal(ctx, o); err != nil {
			return b, err
		}
	}
	f.StartEvents(ctx)
	if b.windows != nil {
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			withdraw.Run(wctx, b.app.Outbox, b.node, b.app.Ledger, withdraw.Config{Observe: b.windows.add, InFlight: o.InFlight, GuardedEvery: o.GuardedEvery})
		}()
		b.stop = func() { cancel(); <-done }
	}
	return b, f.Serve()
}

// perClient is how many invoices each client needs for payments measured
// after the warm-up.
func (o Options) perClient(payments int) int {
	return o.Warmup/o.Clients + payments/o.Clients + 1
}

// round pays the invoices of round through HTTP, flat out or at rate,
// and on a real node waits until the node confirmed every cancel of the
// round.
func (b *nodeBench) round(ctx context.Context, name string, round int, rate float64, o Options) (nodeRow, error) {
	f := b.f
	payments := o.Payments
	if rate > 0 {
		payments = o.RatePayments
	}
	f.SetPayments(payments)
	if err := f.Reconnect(); err != nil {
		return nodeRow{}, err
	}
	var cpu0 time.Duration
	began := time.Now()
	if b.windows != nil {
		b.windows.reset()
		cpu0 = b.net.cpu()
	}
	r, err := f.Run(ctx, name, f.HTTP, round, rate)
	if err != nil {
		return nodeRow{}, err
	}
	row := nodeRow{node: b.kind, Result: b.idle.busy(r)}
	if b.windows != nil {
		ended := time.Now()
		paid := (o.Warmup/o.Clients + payments/o.Clients) * o.Clients
		w, err := b.windows.wait(ctx, paid, 5*time.Second)
		if err != nil {
			return row, err
		}
		row.windows, row.drained, row.unconfirmed = w, time.Since(ended), paid-len(w)
		row.nodeCPU, row.nodeCPUPaid = b.net.busyCPU(cpu0, time.Since(began), b.idle), paid
	}
	return row, nil
}

// verify checks the books: no breach, every payer paid exactly the
// internal payments made, and every external payer its payments and fees
// (verifyExternal).
func (b *nodeBench) verify(ctx context.Context, o Options) error {
	paid := int64(o.Rounds*(o.Warmup/o.Clients+o.Payments/o.Clients) + o.Warmup/o.Clients + o.RatePayments/o.Clients)
	if err := b.f.VerifyPaid(ctx, paid); err != nil {
		return err
	}
	return b.verifyExternal(ctx)
}

// close stops what the bench started, however far it got: the
// withdrawal, the fixture and its application, the node, the database.
func (b *nodeBench) close() {
	b.stop()
	if b.f != nil {
		b.f.Close()
	} else if b.app != nil {
		b.app.Close()
	}
	if n, ok := b.node.(interface{ Close() error }); ok {
		n.Close() //nolint:errcheck // the run is over
	}
	b.closeDB()
}

// windowLog collects the withdrawal's windows.
type windowLog struct {
	mu  sync.Mutex
	got []time.Duration
}

// add notes a window: from an invoice's settlement to its cancel.
func (w *windowLog) add(d time.Duration) {
	w.mu.Lock()
	w.got = append(w.got, d)
	w.mu.Unlock()
}

// reset forgets the windows noted so far.
func (w *windowLog) reset() {
	w.mu.Lock()
	w.got = nil
	w.mu.Unlock()
}

// wait returns the windows, sorted, once there are n of them, or once
// none came for quiet (polling: a benchmark's wait, not a test's). The
// second case is a defect, reported beside the round: a settlement whose
// event the withdrawal never got (the outbox's head passed it before it
// committed) is never withdrawn.
func (w *windowLog) wait(ctx context.Context, n int, quiet time.Duration) ([]time.Duration, error) {
	seen, since := -1, time.Now()
	for {
		w.mu.Lock()
		got := len(w.got)
		if got >= n || got == seen && time.Since(since) >= quiet {
			out := append([]time.Duration(nil), w.got...)
			w.mu.Unlock()
			slices.Sort(out)
			return out, nil
		}
		w.mu.Unlock()
		if got != seen {
			seen, since = got, time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
