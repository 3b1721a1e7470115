package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// With -lnd or -cln, loadbench compares the same internal payments through
// Hearth on the embedded node and on a real node: LND (-lnd) or Core
// Lightning (-cln), Hearth's node of a regtest network it starts
// (nodesnet.go); with both, one network after the other. Each node gets a
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
// Then, on the real node alone, the external phase (nodesext.go): Hearth
// pays invoices of each outside peer of the network over HTTP, as its
// node's payments through their channel, with one client and then with
// -ext-clients.

// idleWindow is how long the idle processor time is measured (idleRates).
const idleWindow = 3 * time.Second

// payees is how many payee wallets a node's fixture pays into.
const payees = 50

// nodeBench is one node's fixture.
type nodeBench struct {
	kind    string   // "embedded", or the real node's backend ("lnd", "cln")
	net     *realNet // nil on the embedded node
	f       *fixture
	closeDB func()
	windows *windowLog     // a real node only
	stop    func()         // stops the withdrawal and the ledger's following of the node
	ext     *externalPhase // a real node's, with -ext-payments
	idle    idleRates
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
	extPayments  int           // measured payments of each external round (0: no external phase)
	extClients   int           // clients of the external rounds after the one-client ones
}

// compareNodes runs the comparison on one database: the embedded node
// against net's, then net's external phase.
func compareNodes(ctx context.Context, dbName, pgURL string, o options, c compareOptions, net *realNet) ([]nodeRow, error) {
	var benches []*nodeBench
	defer func() {
		for _, b := range benches {
			b.close()
		}
	}()
	for _, n := range []*realNet{nil, net} {
		began := time.Now()
		b, err := newNodeBench(ctx, dbName, pgURL, o, c, n)
		benches = append(benches, b) // closed even half made
		if err != nil {
			return nil, fmt.Errorf("%s: preparing: %w", b.kind, err)
		}
		fmt.Printf("%s/%s: prepared in %s\n", dbName, b.kind, time.Since(began).Round(time.Second))
	}
	// What the machine spends idle is not what the payments cost.
	idle, err := measureIdle(ctx, net, benches[1].f.cpu, idleWindow)
	if err != nil {
		return nil, err
	}
	benches[0].idle, benches[1].idle = idle, idle
	fmt.Printf("%s: idle, the %s network spends %.0f ms of processor time a second, this process %.0f ms, PostgreSQL %.0f ms\n",
		dbName, net.title, 1000*idle.nodes, 1000*idle.self, 1000*idle.pg)
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
	ext, err := benches[1].external(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", benches[1].kind, err)
	}
	rows = append(rows, ext...)
	for _, b := range benches {
		if err := b.verify(ctx, c); err != nil {
			return nil, fmt.Errorf("%s: %w", b.kind, err)
		}
	}
	return rows, nil
}

// newNodeBench prepares a fresh database of dbName and Hearth over the
// embedded node (net nil) or net's node. It returns a bench to close even
// with an error, but for one of opening the database.
func newNodeBench(ctx context.Context, dbName, pgURL string, o options, c compareOptions, net *realNet) (*nodeBench, error) {
	kind := "embedded"
	if net != nil {
		kind = net.kind
	}
	b := &nodeBench{kind: kind, net: net, closeDB: func() {}, stop: func() {}}
	db, closeDB, err := openDB(ctx, dbName, pgURL, o.pool)
	if err != nil {
		return b, err
	}
	b.closeDB = closeDB
	var node ledger.Node
	if net == nil {
		node, err = embedded.New(ctx, db, "regtest")
	} else {
		node, err = net.backend()
		b.windows = &windowLog{}
	}
	if err != nil {
		return b, err
	}
	cfg := config.Default()
	cfg.Node.Backend = kind // what the application runs beside a real node (the withdrawal, below)
	a, err := app.New(ctx, cfg, db, app.Options{Node: node, NoWasm: true})
	if err != nil {
		if n, ok := node.(interface{ Close() error }); ok {
			n.Close() //nolint:errcheck // it was never used
		}
		return b, err
	}
	led, wallets := a.Ledger, a.Wallets
	o.payments, o.warmup = c.payments, c.warmup
	f := &fixture{o: o, db: db, app: a, ledger: led, invoices: make([][][]*ledger.Invoice, c.rounds+1), cpu: machine.NewMeter(ctx, db)}
	b.f = f
	per, ratePer := c.perClient(o.clients, c.payments), c.perClient(o.clients, c.ratePayments)
	f.funded = int64(c.rounds*per+ratePer) * load.PaymentMsat
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
	if net != nil {
		if err := b.prepareExternal(ctx, c); err != nil {
			return b, err
		}
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
					inv, err = f.ledger.CreateInvoice(ctx, f.payees[rng.IntN(len(f.payees))], ledger.NewInvoice{AmountMsat: load.PaymentMsat})
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
	load.Result
	windows []time.Duration // sorted; a real node's internal rounds only
	drained time.Duration   // from the round's end until the last cancel
	// unconfirmed counts the payments of the round whose cancel never
	// came: the withdrawal never saw their events (see wait).
	unconfirmed int
	// nodeCPU is the processor time of the network's processes (the
	// nodes, the chain) above their idle rate, over nodeCPUPaid payments
	// (as Result.CPU is Hearth's and PostgreSQL's above theirs):
	// in an internal round, from its start until its last cancel; in an
	// external one, over the measured payments.
	nodeCPU     time.Duration
	nodeCPUPaid int
	// An external round's: the outside peer paid, its clients, and the
	// fees of its payments, warm-up included.
	peer     string
	clients  int
	feesMsat int64
}

// round pays the invoices of round through HTTP, flat out or at rate,
// and on a real node waits until the node confirmed every cancel of the
// round.
func (b *nodeBench) round(ctx context.Context, name string, round int, rate float64, c compareOptions) (nodeRow, error) {
	f := b.f
	f.o.payments = c.payments
	if rate > 0 {
		f.o.payments = c.ratePayments
	}
	if err := f.reconnect(); err != nil {
		return nodeRow{}, err
	}
	var cpu0 time.Duration
	began := time.Now()
	if b.windows != nil {
		b.windows.reset()
		cpu0 = b.net.cpu()
	}
	r, err := f.run(ctx, name, f.http, round, rate)
	if err != nil {
		return nodeRow{}, err
	}
	row := nodeRow{node: b.kind, Result: b.idle.busy(r)}
	if b.windows != nil {
		ended := time.Now()
		paid := (f.o.warmup/f.o.clients + f.o.payments/f.o.clients) * f.o.clients
		w, err := b.windows.wait(ctx, paid, 5*time.Second)
		if err != nil {
			return row, err
		}
		row.windows, row.drained, row.unconfirmed = w, time.Since(ended), paid-len(w)
		row.nodeCPU, row.nodeCPUPaid = b.net.busyCPU(cpu0, time.Since(began), b.idle), paid
	}
	return row, nil
}

// reconnect opens fresh connections for the clients: the server closes
// idle ones, and the other node's round just ran.
func (f *fixture) reconnect() error {
	for _, cn := range f.conns {
		cn.Close()
	}
	f.conns = nil
	return f.connect()
}

// verify checks the books: no breach, every payer paid exactly the
// internal payments made, and every external payer its payments and fees
// (verifyExternal).
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
		if want := f.funded - paid*load.PaymentMsat; available != want {
			return fmt.Errorf("payer %d holds %d msat, want %d", i, available, want)
		}
	}
	return b.verifyExternal(ctx)
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

// printNodeRows prints the comparison of one database, the real node's
// (title) rate against the embedded node's, round by round, and its
// external rounds.
func printNodeRows(w io.Writer, db, title string, rows []nodeRow, loadBefore, loadAfter string) {
	fmt.Fprintf(w, "\n%s, embedded node against %s (load average %s before, %s after; µs/pay: processor time above idle, per payment; nodes: the %s network's processes)\n",
		db, title, loadBefore, loadAfter, title)
	fmt.Fprintf(w, "%-9s %-18s %9s %11s %9s %9s %9s %18s %13s   %-28s %s\n", "node", "run", "payments", "payments/s", "p50", "p99", "max",
		"hearth[+pg] µs/pay", "nodes µs/pay", "cancel delay p50 / p99 / max", "drained")
	var emb, onNode []float64
	var external []nodeRow
	for _, r := range rows {
		if r.peer != "" {
			external = append(external, r)
			continue
		}
		window, drained := "-", "-"
		if len(r.windows) > 0 {
			res := load.Result{Latencies: r.windows}
			window = fmt.Sprintf("%s / %s / %s", stats.Round(res.Percentile(50)), stats.Round(res.Percentile(99)), stats.Round(res.Percentile(100)))
			drained = stats.Round(r.drained).String()
		}
		if r.unconfirmed > 0 {
			drained += fmt.Sprintf(" (%d NEVER CANCELLED)", r.unconfirmed)
		}
		fmt.Fprintf(w, "%-9s %-18s %9d %11.0f %9s %9s %9s %18s %13s   %-28s %s\n", r.node, r.Name, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU),
			r.nodesPerPayment(), window, drained)
		if !r.FixedRate {
			if r.node == "embedded" {
				emb = append(emb, r.Rate())
			} else {
				onNode = append(onNode, r.Rate())
			}
		}
	}
	var shares []string
	for i := range min(len(emb), len(onNode)) {
		shares = append(shares, fmt.Sprintf("%.0f%%", 100*onNode[i]/emb[i]))
	}
	slices.Sort(emb)
	slices.Sort(onNode)
	if len(emb) > 0 && len(onNode) > 0 {
		fmt.Fprintf(w, "%s: %s's payments/s of the embedded node's, round by round: %s; median against median: %.0f%%\n",
			db, title, strings.Join(shares, ", "), 100*onNode[len(onNode)/2]/emb[len(emb)/2])
	}
	if len(external) == 0 {
		return
	}
	fmt.Fprintf(w, "%s, external payments of 1 sat on %s, each through the channel to the outside peer\n", db, title)
	fmt.Fprintf(w, "%-9s %-24s %9s %11s %9s %9s %9s %12s   %s\n", "node", "run", "payments", "payments/s", "p50", "p99", "max",
		"fee msat/pay", "cpu µs/pay above idle: hearth[+pg]+nodes")
	for _, r := range external {
		paid := len(r.Latencies) + r.clients*extWarm
		fmt.Fprintf(w, "%-9s %-24s %9d %11.1f %9s %9s %9s %12.1f   %s+%s\n", r.node, r.Name, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), float64(r.feesMsat)/float64(paid),
			r.CPU.PerPayment(len(r.Latencies), r.PGCPU), r.nodesPerPayment())
	}
}

// nodesPerPayment formats the network's processor time per payment, in
// µs ("-" when none was measured).
func (r nodeRow) nodesPerPayment() string {
	if r.nodeCPUPaid == 0 {
		return "-"
	}
	return strconv.FormatInt(r.nodeCPU.Microseconds()/int64(r.nodeCPUPaid), 10)
}
