package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// phases is how many runs each database gets: the bare database, Hearth
// flat out, and Hearth at a fixed rate.
const phases = 3

// fixture is one prepared database and the Hearth server over it.
type fixture struct {
	o      options
	db     *store.DB
	ledger *ledger.Service
	srv    *http.Server
	addr   string       // 127.0.0.1:port
	conns  []*load.Conn // one keep-alive connection per client
	// client i pays from payers[i] to payees[i], one invoice per payment:
	// invoices[phase][i] are client i's invoices for that phase. On
	// PostgreSQL two more phases per replica round (replicas.go) pay
	// around the ring of payers: client i into payers[i+1].
	payers, payees, keys []string
	invoices             [][][]*ledger.Invoice
	cpu                  machine.Meter
	funded               int64
	pgURL                string // PostgreSQL only: the replicas open their own pools
	events               *eventStream
	builtinsDone         chan struct{} // closed when the built-ins' work has ended (nil: none runs)
	app                  *app.App
}

// serverBuiltins are the built-ins of `hearth serve` on the embedded node:
// the webhooks and Nostr built-ins read the outbox as they do in a server,
// so the outbox's measured cost includes them.
// Fresh for each fixture, as each server builds its own.
func serverBuiltins() []app.Builtin {
	return append([]app.Builtin{app.EmbeddedNode()}, builtins.Features()...)
}

// newFixture prepares db: the server, the wallets, the keys, the funds and
// every invoice the phases will pay.
func newFixture(ctx context.Context, db *store.DB, pgURL string, o options) (*fixture, error) {
	a, err := app.New(ctx, config.Default(), db, app.Options{Builtins: serverBuiltins(), NoWasm: true, NoOutbox: o.noOutbox})
	if err != nil {
		return nil, err
	}
	f := &fixture{o: o, db: db, app: a, ledger: a.Ledger, pgURL: pgURL, invoices: make([][][]*ledger.Invoice, phases), cpu: machine.NewMeter(ctx, db)}
	switch {
	case o.outboxRounds > 0:
		f.invoices = make([][][]*ledger.Invoice, 2*o.outboxRounds)
	case db.Dialect == store.Postgres:
		f.invoices = make([][][]*ledger.Invoice, phases+2*max(o.replicaRounds, 1))
	}
	per := o.perClient()
	f.funded = int64(len(f.invoices)*per) * load.PaymentMsat
	for i := range o.clients {
		if err := f.addPayer(ctx, i); err != nil {
			return nil, err
		}
		payee, err := a.Wallets.Ensure(ctx, fmt.Sprintf("loadbench-payee-%03d", i))
		if err != nil {
			return nil, err
		}
		f.payees = append(f.payees, payee.ID)
	}
	for phase := range f.invoices {
		f.invoices[phase] = make([][]*ledger.Invoice, o.clients)
	}
	if err := f.createInvoices(ctx, per); err != nil {
		return nil, err
	}
	// The outbox and its stream run from here: after the fixture's own
	// events, as a server started over a prepared database would.
	if a.Outbox != nil {
		f.events = startEvents(ctx, a.Outbox, a.Hub)
		f.builtinsDone = make(chan struct{})
		go func() {
			defer close(f.builtinsDone)
			a.Registry.RunBuiltins(f.events.ctx, a.Outbox)
		}()
	}
	if err := f.listen(server.New(a, "loadbench", "")); err != nil {
		return nil, err
	}
	token, err := a.Tokens.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		return nil, err
	}
	if o.stream && f.events != nil {
		if err := f.events.follow(ctx, f.addr, token); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// fund credits a payer through the path a node's settlement takes.
func (f *fixture) fund(ctx context.Context, walletID string) error {
	inv, err := f.ledger.CreateInvoice(ctx, walletID, ledger.NewInvoice{AmountMsat: f.funded})
	if err != nil {
		return err
	}
	_, err = f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.PaymentHash, AmountMsat: f.funded, Settled: true})
	return err
}

// createInvoices issues per invoices per client and phase into the payees'
// wallets, from a few goroutines (signing is most of the work). After the
// first error the rest of the jobs are skipped.
func (f *fixture) createInvoices(ctx context.Context, per int) error {
	type job struct{ phase, client int }
	jobs := make(chan job)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				payee := f.payees[j.client]
				if f.ring(j.phase) {
					payee = f.payers[(j.client+1)%f.o.clients]
				}
				invs, err := f.issue(ctx, payee, per)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				f.invoices[j.phase][j.client] = invs
				mu.Unlock()
			}
		}()
	}
	for phase := range f.invoices {
		for client := range f.o.clients {
			jobs <- job{phase, client}
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return fmt.Errorf("creating invoices: %w", first)
	}
	return nil
}

// issue creates n invoices of load.PaymentMsat into walletID.
func (f *fixture) issue(ctx context.Context, walletID string, n int) ([]*ledger.Invoice, error) {
	invs := make([]*ledger.Invoice, 0, n)
	for range n {
		inv, err := f.ledger.CreateInvoice(ctx, walletID, ledger.NewInvoice{AmountMsat: load.PaymentMsat})
		if err != nil {
			return nil, err
		}
		invs = append(invs, inv)
	}
	return invs, nil
}

func (f *fixture) listen(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	f.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	f.addr = ln.Addr().String()
	go f.srv.Serve(ln) //nolint:errcheck // ends with close
	return nil
}

// connect opens each client's keep-alive connection to the server, right
// before the first phase over HTTP: one opened earlier would sit idle
// through the bare phase, longer than the server waits for a request.
func (f *fixture) connect() error {
	for range f.o.clients {
		c, err := load.Dial(f.addr)
		if err != nil {
			return err
		}
		f.conns = append(f.conns, c)
	}
	return nil
}

func (f *fixture) close() {
	for _, c := range f.conns {
		c.Close()
	}
	f.srv.Close()
	if f.events != nil {
		f.events.stop()
	}
	if f.builtinsDone != nil {
		<-f.builtinsDone // their cursors saved before the database closes
	}
	f.app.Close()
}

// payFunc pays invoice inv as client i and reports an error on any failure.
type payFunc func(ctx context.Context, client int, inv *ledger.Invoice) error

// run makes every client pay its invoices of phase, concurrently, through
// pay (drive): the first o.warmup payments in all are not measured.
func (f *fixture) run(ctx context.Context, name string, pay payFunc, phase int, rate float64) (load.Result, error) {
	r, err := load.Drive(name, f.o.clients, f.o.warmup/f.o.clients, f.o.payments/f.o.clients, rate, f.cpu.Read,
		func(i, k int) error { return pay(ctx, i, f.invoices[phase][i][k]) })
	r.PGCPU = f.cpu.MeasuresPostgres()
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// verify checks the books after the phases: every payer paid exactly the
// payments made (and, around the ring, received as many), and the ledger
// invariant holds everywhere.
func (f *fixture) verify(ctx context.Context) error {
	breaches, err := f.ledger.Check(ctx)
	if err != nil {
		return err
	}
	if len(breaches) > 0 {
		return fmt.Errorf("ledger check: %d wallets in breach, first %+v", len(breaches), breaches[0])
	}
	per := int64(f.o.warmup/f.o.clients + f.o.payments/f.o.clients)
	for i, id := range f.payers {
		var available int64
		if err := f.db.R.NewSelect().Table("wallets").Column("available_msat").Where("id = ?", id).Scan(ctx, &available); err != nil {
			return err
		}
		// Around the ring each payer received as much as it paid.
		if want := f.funded - int64(f.paidPhases())*per*load.PaymentMsat; available != want {
			return fmt.Errorf("payer %d holds %d msat, want %d", i, available, want)
		}
	}
	return nil
}

// ring reports whether phase pays around the ring of payers.
func (f *fixture) ring(phase int) bool { return f.o.outboxRounds == 0 && phase >= phases }

// paidPhases is how many phases pay from the payers to the payees.
func (f *fixture) paidPhases() int {
	if f.o.outboxRounds > 0 {
		return 2 * f.o.outboxRounds
	}
	return phases
}

// addPayer makes client i's payer: its wallet, funded with f.funded, and
// an API key that may pay from it.
func (f *fixture) addPayer(ctx context.Context, i int) error {
	payer, err := f.app.Wallets.Ensure(ctx, fmt.Sprintf("loadbench-payer-%03d", i))
	if err != nil {
		return err
	}
	admin := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true, Method: auth.MethodJWT}
	k, err := f.app.Keys.Create(ctx, admin, auth.NewKey{UserID: payer.UserID, Name: "loadbench",
		Permissions: []string{auth.WriteTransaction.String()}})
	if err != nil {
		return err
	}
	if err := f.fund(ctx, payer.ID); err != nil {
		return err
	}
	f.payers, f.keys = append(f.payers, payer.ID), append(f.keys, k.Key)
	return nil
}
