package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/internal/regtest"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
)

// With -lnd, loadbench compares the same internal payments through Hearth
// on the embedded node and on a real LND (Hearth's node of a regtest
// network it starts), on each database. Each node gets a fresh database
// of its own with the same shape: one payer wallet and API key per client,
// 50 payee wallets, and every invoice made beforehand (by the node, at LND
// for LND), each to a payee drawn at random. The flat-out rounds alternate
// between the nodes (embedded first in odd rounds, LND first in even ones),
// so that the machine's load weighs on both alike; then each node pays at
// the fixed -lnd-rate. On LND, Hearth runs the withdrawal of internally
// settled invoices from the node (core/withdraw) as hearth serve does: it
// holds LND's invoice guard, so that no outside payer can pay an invoice
// settled inside, and cancels those invoices at its guarded pace. The
// delay from each settlement to the node's cancel is reported, and a round
// ends only once the node confirmed every cancel of it, so that no round
// pays for the previous one's cancels.

// payees is how many payee wallets a node's fixture pays into.
const payees = 50

// nodeBench is one node's fixture.
type nodeBench struct {
	kind    string // "embedded" or "lnd"
	f       *fixture
	closeDB func()
	windows *windowLog // LND only
	stop    func()     // stops the withdrawal
}

// compareOptions shape the comparison.
type compareOptions struct {
	rounds       int           // flat-out rounds per node
	payments     int           // measured payments per flat-out round
	warmup       int           // payments per round before measuring
	rate         float64       // payments per second of the fixed-rate round
	ratePayments int           // measured payments of the fixed-rate round
	inFlight     int           // the withdrawal's cancels in flight (0: its default)
	guardedEvery time.Duration // the withdrawal's gap between cancels while guarded (0: its default)
}

// compareNodes runs the comparison on one database.
func compareNodes(ctx context.Context, dbName, pgURL string, o options, c compareOptions, net *regtest.Network) ([]nodeRow, error) {
	var benches []*nodeBench
	defer func() {
		for _, b := range benches {
			b.close()
		}
	}()
	for _, kind := range []string{"embedded", "lnd"} {
		began := time.Now()
		b, err := newNodeBench(ctx, kind, dbName, pgURL, o, c, net)
		if err != nil {
			return nil, fmt.Errorf("%s: preparing: %w", kind, err)
		}
		benches = append(benches, b)
		fmt.Printf("%s/%s: prepared in %s\n", dbName, kind, time.Since(began).Round(time.Second))
	}
	var rows []nodeRow
	for round := range c.rounds + 1 {
		order := benches
		if round%2 == 1 {
			order = []*nodeBench{benches[1], benches[0]}
		}
		for _, b := range order {
			name, rate := fmt.Sprintf("round %d flat out", round+1), 0.0
			if round == c.rounds {
				name, rate = fmt.Sprintf("at %.0f/s", c.rate), c.rate
			}
			row, err := b.round(ctx, name, round, rate, c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.kind, err)
			}
			rows = append(rows, row)
		}
	}
	for _, b := range benches {
		if err := b.verify(ctx, c); err != nil {
			return nil, fmt.Errorf("%s: %w", b.kind, err)
		}
	}
	return rows, nil
}

// newNodeBench prepares a fresh database of dbName and Hearth over the
// node of kind.
func newNodeBench(ctx context.Context, kind, dbName, pgURL string, o options, c compareOptions, net *regtest.Network) (*nodeBench, error) {
	db, closeDB, err := openDB(ctx, dbName, pgURL, o.pool)
	if err != nil {
		return nil, err
	}
	b := &nodeBench{kind: kind, closeDB: closeDB, stop: func() {}}
	var node ledger.Node
	switch kind {
	case "embedded":
		if node, err = embedded.New(ctx, db, "regtest"); err != nil {
			closeDB()
			return nil, err
		}
	case "lnd":
		n, err := lnd.New(lnd.Config{Address: net.Hearth.RPCAddress, TLSCert: net.Hearth.TLSCertPath(), Macaroon: net.Hearth.MacaroonPath()})
		if err != nil {
			closeDB()
			return nil, err
		}
		node = n
		b.windows = &windowLog{}
	}
	cfg := config.Default()
	if kind == "lnd" {
		cfg.Node.Backend = "lnd" // what the application runs beside such a node (the withdrawal, below)
	}
	a, err := app.New(ctx, cfg, db, app.Options{Node: node, NoWasm: true})
	if err != nil {
		closeDB()
		return nil, err
	}
	led, wallets := a.Ledger, a.Wallets
	o.payments, o.warmup = c.payments, c.warmup
	f := &fixture{o: o, db: db, app: a, ledger: led, invoices: make([][][]*ledger.Invoice, c.rounds+1), cpu: newCPUMeter(ctx, db)}
	b.f = f
	per, ratePer := c.perClient(o.clients, c.payments), c.perClient(o.clients, c.ratePayments)
	f.funded = int64(c.rounds*per+ratePer) * paymentMsat
	for i := range o.clients {
		if err := f.addPayer(ctx, i); err != nil {
			return b, err
		}
	}
	for i := range payees {
		payee, err := wallets.Ensure(ctx, fmt.Sprintf("loadbench-payee-%03d", i))
		if err != nil {
			return b, err
		}
		f.payees = append(f.payees, payee.ID)
	}
	if err := b.issueRandom(ctx, per, ratePer); err != nil {
		return b, err
	}
	f.events = startEvents(ctx, a.Outbox, a.Hub)
	if b.windows != nil {
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			withdraw.Run(wctx, f.events.box, node, f.ledger, withdraw.Config{Observe: b.windows.add, InFlight: c.inFlight, GuardedEvery: c.guardedEvery})
		}()
		b.stop = func() { cancel(); <-done }
	}
	return b, f.listen(server.New(a, "loadbench", ""))
}

// perClient is how many invoices each client needs for payments measured
// after the warm-up.
func (c compareOptions) perClient(clients, payments int) int {
	return c.warmup/clients + payments/clients + 1
}

// issueRandom makes every invoice of the rounds, per per client in each
// flat-out round and ratePer in the fixed-rate one, each into a payee
// drawn at random, from eight goroutines.
func (b *nodeBench) issueRandom(ctx context.Context, per, ratePer int) error {
	f := b.f
	type job struct{ round, client, n int }
	jobs := make(chan job)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 20))
			for j := range jobs {
				invs := make([]*ledger.Invoice, 0, j.n)
				var err error
				for range j.n {
					var inv *ledger.Invoice
					inv, err = f.ledger.CreateInvoice(ctx, f.payees[rng.IntN(len(f.payees))], ledger.NewInvoice{AmountMsat: paymentMsat})
					if err != nil {
						break
					}
					invs = append(invs, inv)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				f.invoices[j.round][j.client] = invs
				mu.Unlock()
			}
		})
	}
	for round := range f.invoices {
		f.invoices[round] = make([][]*ledger.Invoice, f.o.clients)
		n := per
		if round == len(f.invoices)-1 {
			n = ratePer
		}
		for client := range f.o.clients {
			jobs <- job{round, client, n}
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return fmt.Errorf("creating invoices: %w", first)
	}
	return nil
}

// nodeRow is one round of one node.
type nodeRow struct {
	node string
	result
	windows []time.Duration // sorted; LND only
	drained time.Duration   // from the round's end until the last cancel
	// unconfirmed counts the payments of the round whose cancel never
	// came: the withdrawal never saw their events (see wait).
	unconfirmed int
}

// round pays the invoices of round through HTTP, flat out or at rate,
// and on LND waits until the node confirmed every cancel of the round.
func (b *nodeBench) round(ctx context.Context, name string, round int, rate float64, c compareOptions) (nodeRow, error) {
	f := b.f
	f.o.payments = c.payments
	if rate > 0 {
		f.o.payments = c.ratePayments
	}
	// Fresh connections: the server closes idle ones, and the other
	// node's round just ran.
	for _, cn := range f.conns {
		cn.c.Close()
	}
	f.conns = nil
	if err := f.connect(); err != nil {
		return nodeRow{}, err
	}
	if b.windows != nil {
		b.windows.reset()
	}
	r, err := f.run(ctx, name, f.http, round, rate)
	if err != nil {
		return nodeRow{}, err
	}
	row := nodeRow{node: b.kind, result: r}
	if b.windows != nil {
		ended := time.Now()
		paid := (f.o.warmup/f.o.clients + f.o.payments/f.o.clients) * f.o.clients
		w, err := b.windows.wait(ctx, paid, 5*time.Second)
		if err != nil {
			return row, err
		}
		row.windows, row.drained, row.unconfirmed = w, time.Since(ended), paid-len(w)
	}
	return row, nil
}

// verify checks the books: no breach, and every payer paid exactly the
// payments made.
func (b *nodeBench) verify(ctx context.Context, c compareOptions) error {
	f := b.f
	breaches, err := f.ledger.Check(ctx)
	if err != nil {
		return err
	}
	if len(breaches) > 0 {
		return fmt.Errorf("ledger check: %d wallets in breach, first %+v", len(breaches), breaches[0])
	}
	paid := int64(c.rounds*(c.warmup/f.o.clients+c.payments/f.o.clients) + c.warmup/f.o.clients + c.ratePayments/f.o.clients)
	for i, id := range f.payers {
		var available int64
		if err := f.db.R.NewSelect().Table("wallets").Column("available_msat").Where("id = ?", id).Scan(ctx, &available); err != nil {
			return err
		}
		if want := f.funded - paid*paymentMsat; available != want {
			return fmt.Errorf("payer %d holds %d msat, want %d", i, available, want)
		}
	}
	return nil
}

func (b *nodeBench) close() {
	if b.f != nil {
		b.stop()
		if b.f.srv != nil {
			b.f.close()
		} else if b.f.events != nil {
			b.f.events.stop()
		}
		if n, ok := b.f.ledger.Node().(interface{ Close() error }); ok {
			n.Close() //nolint:errcheck // the run is over
		}
	}
	b.closeDB()
}

// windowLog collects the withdrawal's windows.
type windowLog struct {
	mu  sync.Mutex
	got []time.Duration
}

func (w *windowLog) add(d time.Duration) {
	w.mu.Lock()
	w.got = append(w.got, d)
	w.mu.Unlock()
}

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
			sortDurations(out)
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

func sortDurations(d []time.Duration) { slices.Sort(d) }

// printNodeRows prints the comparison of one database, and LND's rate
// against the embedded node's, round by round.
func printNodeRows(w io.Writer, db string, rows []nodeRow, loadBefore, loadAfter string) {
	fmt.Fprintf(w, "\n%s, embedded node against LND (load average %s before, %s after)\n", db, loadBefore, loadAfter)
	fmt.Fprintf(w, "%-9s %-18s %9s %11s %9s %9s %9s   %-28s %s\n", "node", "run", "payments", "payments/s", "p50", "p99", "max",
		"cancel delay p50 / p99 / max", "drained")
	var emb, ln []float64
	for _, r := range rows {
		window, drained := "-", "-"
		if len(r.windows) > 0 {
			res := result{latencies: r.windows}
			window = fmt.Sprintf("%s / %s / %s", round(res.percentile(50)), round(res.percentile(99)), round(res.percentile(100)))
			drained = round(r.drained).String()
		}
		if r.unconfirmed > 0 {
			drained += fmt.Sprintf(" (%d NEVER CANCELLED)", r.unconfirmed)
		}
		fmt.Fprintf(w, "%-9s %-18s %9d %11.0f %9s %9s %9s   %-28s %s\n", r.node, r.name, len(r.latencies), r.rate(),
			round(r.percentile(50)), round(r.percentile(99)), round(r.percentile(100)), window, drained)
		if !r.fixedRate {
			if r.node == "lnd" {
				ln = append(ln, r.rate())
			} else {
				emb = append(emb, r.rate())
			}
		}
	}
	var shares []string
	for i := range min(len(emb), len(ln)) {
		shares = append(shares, fmt.Sprintf("%.0f%%", 100*ln[i]/emb[i]))
	}
	slices.Sort(emb)
	slices.Sort(ln)
	if len(emb) > 0 && len(ln) > 0 {
		fmt.Fprintf(w, "%s: LND's payments/s of the embedded node's, round by round: %s; median against median: %.0f%%\n",
			db, strings.Join(shares, ", "), 100*ln[len(ln)/2]/emb[len(emb)/2])
	}
}

// loadAverage is the machine's load average, as uptime shows it.
func loadAverage() string {
	f := loadFields()
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// loadAverage1 is the one-minute load average (0 when unknown).
func loadAverage1() float64 {
	f := loadFields()
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// loadFields are the fields of /proc/loadavg (none when it cannot be read).
func loadFields() []string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}
