package nodes

import (
	"context"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
)

// The external phase, on a real node after its internal rounds: Hearth
// pays invoices of each outside peer of the network over HTTP (POST
// /v1/me/payments, answered once the node's payment settled), each a
// payment of Hearth's node through its channel with that peer, no hop
// between (so no routing fee). Each peer gets a round with one client, one
// payment at a time (the latency), then one with -ext-clients (the rate).
// The ledger follows the node meanwhile as in hearth serve
// (ledger.Service.Run: every finished payment comes back on the node's
// payment stream, and on Core Lightning is listed again), so its cost is
// counted; it starts after the internal rounds, which do not need it and
// whose invoices it would otherwise look up one by one at its start (then
// only the few spare ones are left pending).
// The peers make every invoice beforehand.

// extWarm is each client's payments of an external round before measuring.
const extWarm = 1

// extFundMsat is what each external payment is funded with: the amount
// and well above the fee reserve of a 1-sat payment (5 sat).
const extFundMsat = load.PaymentMsat + 50_000

// externalPhase is a real node's external fixture.
type externalPhase struct {
	rounds []*extRound
	// payers[i] is the wallet client i pays from, with keys[i] and funded
	// with funded[i]; paid[i] counts its payments over every round.
	payers, keys []string
	funded       []int64
	paid         []int
}

// extRound is one external round: clients pay invoices of peer.
type extRound struct {
	peer     string
	clients  int
	invoices [][]string // per client, warm-up first
}

// prepareExternal makes the external rounds' invoices at each peer and
// the payers that pay them, when c asks for external payments.
func (b *nodeBench) prepareExternal(ctx context.Context, o Options) error {
	if o.ExtPayments <= 0 {
		return nil
	}
	counts := []int{1}
	if o.ExtClients > 1 {
		counts = append(counts, o.ExtClients)
	}
	e := &externalPhase{}
	for _, peer := range b.net.peers {
		for _, clients := range counts {
			r := &extRound{peer: peer.name, clients: clients, invoices: make([][]string, clients)}
			per := extWarm + max(o.ExtPayments/clients, 1)
			for i := range clients {
				for range per {
					bolt11, err := peer.invoice(ctx, load.PaymentMsat)
					if err != nil {
						return fmt.Errorf("an invoice of the outside %s: %w", peer.name, err)
					}
					r.invoices[i] = append(r.invoices[i], bolt11)
				}
			}
			e.rounds = append(e.rounds, r)
		}
	}
	for i := range counts[len(counts)-1] {
		n := 0
		for _, r := range e.rounds {
			if i < r.clients {
				n += len(r.invoices[i])
			}
		}
		id, key, err := b.addExternalPayer(ctx, i, int64(n)*extFundMsat)
		if err != nil {
			return err
		}
		e.payers, e.keys = append(e.payers, id), append(e.keys, key)
		e.funded, e.paid = append(e.funded, int64(n)*extFundMsat), append(e.paid, 0)
	}
	b.ext = e
	return nil
}

// addExternalPayer makes client i's external payer, funded with msat
// through the path a node's settlement takes, and its API key.
func (b *nodeBench) addExternalPayer(ctx context.Context, i int, msat int64) (walletID, key string, err error) {
	a := b.app
	w, err := a.Wallets.Ensure(ctx, fmt.Sprintf("loadbench-external-%03d", i))
	if err != nil {
		return "", "", fmt.Errorf("external payer %d: %w", i, err)
	}
	admin := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true, Method: auth.MethodJWT}
	k, err := a.Keys.Create(ctx, admin, auth.NewKey{UserID: w.UserID, Name: "loadbench-external", Permissions: []string{auth.WriteTransaction.String()}})
	if err != nil {
		return "", "", fmt.Errorf("external payer %d's key: %w", i, err)
	}
	inv, err := a.Ledger.CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: msat})
	if err != nil {
		return "", "", fmt.Errorf("funding external payer %d: %w", i, err)
	}
	if _, err := a.Ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.PaymentHash, AmountMsat: msat, Settled: true}); err != nil {
		return "", "", fmt.Errorf("funding external payer %d: %w", i, err)
	}
	return w.ID, k.Key, nil
}

// external runs the external rounds (none on the embedded node, or
// without -ext-payments), with the ledger following the node.
func (b *nodeBench) external(ctx context.Context) ([]nodeRow, error) {
	e := b.ext
	if e == nil {
		return nil, nil
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.app.Ledger.Run(runCtx) //nolint:errcheck // ends with runCtx
	}()
	prev := b.stop
	b.stop = func() { cancel(); <-done; prev() }
	var rows []nodeRow
	for _, r := range e.rounds {
		row, err := b.externalRound(ctx, r)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// externalRound pays r's invoices flat out, each client over a connection
// of its own.
func (b *nodeBench) externalRound(ctx context.Context, r *extRound) (nodeRow, error) {
	f, e := b.f, b.ext
	conns := make([]*load.Conn, r.clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		c, err := load.Dial(f.Addr())
		if err != nil {
			return nodeRow{}, err
		}
		conns[i] = c
	}
	feesBefore, err := b.externalFees(ctx)
	if err != nil {
		return nodeRow{}, err
	}
	var nodes []time.Duration // the network's processor time, as drive reads Hearth's
	meter := func() machine.Reading {
		nodes = append(nodes, b.net.cpu())
		return f.Meter().Read()
	}
	plural := "s"
	if r.clients == 1 {
		plural = ""
	}
	name := fmt.Sprintf("to %s, %d client%s", r.peer, r.clients, plural)
	per := len(r.invoices[0])
	res, err := load.Drive(name, r.clients, extWarm, per-extWarm, 0, meter, func(i, k int) error {
		return conns[i].Pay(f.Addr(), e.keys[i], r.invoices[i][k])
	})
	res.PGCPU = f.Meter().MeasuresPostgres()
	if err != nil {
		return nodeRow{}, fmt.Errorf("%s: %w", name, err)
	}
	for i := range r.clients {
		e.paid[i] += per
	}
	feesAfter, err := b.externalFees(ctx)
	if err != nil {
		return nodeRow{}, err
	}
	row := nodeRow{node: b.kind, Result: b.idle.busy(res), peer: r.peer, clients: r.clients, feesMsat: feesAfter - feesBefore, nodeCPUPaid: len(res.Latencies)}
	if len(nodes) == 2 {
		row.nodeCPU = max(nodes[1]-nodes[0]-time.Duration(b.idle.nodes*float64(res.Elapsed)), 0)
	}
	return row, nil
}

// externalFees sums the fees the external payers paid so far.
func (b *nodeBench) externalFees(ctx context.Context) (int64, error) {
	var fees int64
	for _, id := range b.ext.payers {
		var v int64
		if err := b.db.R.NewSelect().Table("wallets").Column("fees_paid_msat").Where("id = ?", id).Scan(ctx, &v); err != nil {
			return 0, fmt.Errorf("reading the external payers' fees: %w", err)
		}
		fees += v
	}
	return fees, nil
}

// verifyExternal checks each external payer's books: nothing reserved,
// exactly its payments sent, and its funds less those and their fees
// available.
func (b *nodeBench) verifyExternal(ctx context.Context) error {
	e := b.ext
	if e == nil {
		return nil
	}
	for i, id := range e.payers {
		var w struct {
			Available int64 `bun:"available_msat"`
			Reserved  int64 `bun:"reserved_msat"`
			Sent      int64 `bun:"sent_msat"`
			Fees      int64 `bun:"fees_paid_msat"`
		}
		if err := b.db.R.NewSelect().Table("wallets").Column("available_msat", "reserved_msat", "sent_msat", "fees_paid_msat").
			Where("id = ?", id).Scan(ctx, &w.Available, &w.Reserved, &w.Sent, &w.Fees); err != nil {
			return fmt.Errorf("external payer %d: %w", i, err)
		}
		wantSent := int64(e.paid[i]) * load.PaymentMsat
		if w.Reserved != 0 || w.Sent != wantSent || w.Available != e.funded[i]-w.Sent-w.Fees {
			return fmt.Errorf("external payer %d: available %d, reserved %d, sent %d, fees %d msat; want sent %d of %d funded, nothing reserved",
				i, w.Available, w.Reserved, w.Sent, w.Fees, wantSent, e.funded[i])
		}
	}
	return nil
}
