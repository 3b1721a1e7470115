package ledger_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// scriptedNode is a test double of a real node whose answers each test
// scripts: it lets the ledger's external-payment logic (reserve, settle,
// fail, reconcile) be tested here; the real LND backend is tested against
// a regtest network in its own package.
type scriptedNode struct {
	mu       sync.Mutex
	n        int
	decoded  map[string]*ledger.DecodedInvoice
	pay      func(ledger.NodePayment) (*ledger.NodePaymentResult, error)
	payments map[string]*ledger.NodePaymentResult
	invoices map[string]*ledger.InvoiceSettlement
	payCalls int
}

func newScriptedNode() *scriptedNode {
	return &scriptedNode{
		decoded:  map[string]*ledger.DecodedInvoice{},
		payments: map[string]*ledger.NodePaymentResult{},
		invoices: map[string]*ledger.InvoiceSettlement{},
	}
}

func (n *scriptedNode) Info(context.Context) (ledger.NodeInfo, error) {
	return ledger.NodeInfo{Backend: "scripted", ExternalPayments: true}, nil
}

func (n *scriptedNode) hash() string {
	n.n++
	return fmt.Sprintf("%064x", n.n)
}

// preimage draws the next preimage and its payment hash, as a real node
// does for its invoices.
func (n *scriptedNode) preimage() (preimage, hash string) {
	n.n++
	p := fmt.Sprintf("%064x", n.n)
	raw, _ := hex.DecodeString(p)
	h := sha256.Sum256(raw)
	return p, hex.EncodeToString(h[:])
}

func (n *scriptedNode) CreateInvoice(_ context.Context, req ledger.NodeInvoiceRequest) (*ledger.NodeInvoice, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	preimage, h := n.preimage()
	bolt11 := "lnbcrt" + h
	now := time.Now()
	n.decoded[bolt11] = &ledger.DecodedInvoice{PaymentHash: h, AmountMsat: req.AmountMsat, PayeePubkey: "us", CreatedAt: now, ExpiresAt: now.Add(req.Expiry)}
	return &ledger.NodeInvoice{Bolt11: bolt11, PaymentHash: h, PaymentSecret: h, PayeePubkey: "us", CreatedAt: now, Expiry: req.Expiry, Preimage: preimage}, nil
}

// external makes an invoice of somebody else's node.
func (n *scriptedNode) external(amount int64) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.hash()
	bolt11 := "lnbcrt" + h
	n.decoded[bolt11] = &ledger.DecodedInvoice{PaymentHash: h, AmountMsat: amount, PayeePubkey: "them", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	return bolt11
}

func (n *scriptedNode) Decode(bolt11 string) (*ledger.DecodedInvoice, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if d, ok := n.decoded[bolt11]; ok {
		return d, nil
	}
	return nil, errors.New("unknown invoice")
}

func (n *scriptedNode) Pay(_ context.Context, req ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	n.mu.Lock()
	n.payCalls++
	pay := n.pay
	n.mu.Unlock()
	return pay(req)
}

func (n *scriptedNode) LookupPayment(_ context.Context, hash string) (*ledger.NodePaymentResult, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if r, ok := n.payments[hash]; ok {
		return r, nil
	}
	return &ledger.NodePaymentResult{State: ledger.PaymentUnknown}, nil
}

func (n *scriptedNode) LookupInvoice(_ context.Context, hash string) (*ledger.InvoiceSettlement, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if st, ok := n.invoices[hash]; ok {
		return st, nil
	}
	return nil, ledger.ErrUnknownInvoice
}

func (n *scriptedNode) CancelInvoice(context.Context, string) error { return nil }

func (n *scriptedNode) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	return make(chan ledger.InvoiceSettlement), nil
}

type fixture struct {
	db     *store.DB
	node   *scriptedNode
	ledger *ledger.Service
	wallet string
}

func newFixture(t *testing.T, db *store.DB, funds int64) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{db: db, node: newScriptedNode()}
	f.ledger = ledger.New(db, f.node, nil, ledger.Config{}, nil)
	w, err := wallet.NewService(db).Ensure(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	f.wallet = w.ID
	inv, err := f.ledger.CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: funds})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: funds}); err != nil {
		t.Fatal(err)
	}
	return f
}

// funded makes the wallet of user, paid funds by the node, and returns
// its id.
func (f *fixture) funded(t *testing.T, user string, funds int64) string {
	t.Helper()
	ctx := context.Background()
	w, err := wallet.NewService(f.db).Ensure(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := f.ledger.CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: funds})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: funds}); err != nil {
		t.Fatal(err)
	}
	return w.ID
}

// another returns a second ledger on f's database, as another process has
// it: over a replica's connections on PostgreSQL, over the same file on
// SQLite.
func (f *fixture) another(t *testing.T) *ledger.Service {
	db := f.db
	if db.Dialect == store.Postgres {
		db = storetest.Replica(t, db)
	}
	return ledger.New(db, f.node, nil, ledger.Config{}, nil)
}

func (f *fixture) balance(t *testing.T) wallet.Balance {
	t.Helper()
	w, err := wallet.NewService(f.db).Get(context.Background(), f.wallet)
	if err != nil {
		t.Fatal(err)
	}
	return w.Balance
}

func (f *fixture) check(t *testing.T) {
	t.Helper()
	breaches, err := f.ledger.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range breaches {
		t.Errorf("breach: %+v", b)
	}
}

func TestExternalPaymentSettlesAtTheRealFee(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, 1_000_000)
		f.node.pay = func(req ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			if req.MaxFeeMsat != 5_000 || req.AmountMsat != 100_000 {
				return nil, &ledger.PaymentFailure{Reason: fmt.Sprintf("unexpected request %+v", req)}
			}
			return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 321, Preimage: "ab"}, nil
		}
		p, created, err := f.ledger.Pay(context.Background(), f.wallet, ledger.PayRequest{Input: f.node.external(100_000)})
		if err != nil || !created {
			t.Fatal(err)
		}
		if p.Status != "Settled" || p.Ledger != "Lightning" || *p.FeeMsat != 321 || *p.Lightning.PaymentPreimage != "ab" {
			t.Fatalf("payment = %+v", p)
		}
		if b := f.balance(t); b != (wallet.Balance{AvailableMsat: 1_000_000 - 100_321, ReceivedMsat: 1_000_000, SentMsat: 100_000, FeesPaidMsat: 321}) {
			t.Fatalf("balance = %+v", b)
		}
		f.check(t)
	})
}

func TestExternalPaymentFailureReleasesTheReserve(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, 1_000_000)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, &ledger.PaymentFailure{Reason: "no route"}
		}
		p, _, err := f.ledger.Pay(context.Background(), f.wallet, ledger.PayRequest{Input: f.node.external(200_000)})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != "Failed" || p.Error == nil || *p.Error != "no route" {
			t.Fatalf("payment = %+v", p)
		}
		if b := f.balance(t); b != (wallet.Balance{AvailableMsat: 1_000_000, ReceivedMsat: 1_000_000}) {
			t.Fatalf("balance = %+v", b)
		}
		// A late success after the failure still settles, and is debited.
		if err := f.ledger.SettlePayment(context.Background(), p.ID, 10, "cd"); err != nil {
			t.Fatal(err)
		}
		if b := f.balance(t); b.AvailableMsat != 1_000_000-200_010 || b.SentMsat != 200_000 {
			t.Fatalf("after late success = %+v", b)
		}
		f.check(t)
	})
}

func TestAmbiguousPaymentStaysPendingAndIsReconciledAfterRestart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("connection reset by peer")
		}
		bolt11 := f.node.external(300_000)
		p, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: bolt11, IdempotencyKey: "k1"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != "Pending" {
			t.Fatalf("ambiguous payment = %s", p.Status)
		}
		reserve := int64(300_000 + 5_000)
		if b := f.balance(t); b.ReservedMsat != reserve || b.AvailableMsat != 1_000_000-reserve {
			t.Fatalf("reserve = %+v", b)
		}
		f.check(t)
		// A retry neither pays again nor starts a second payment.
		again, created, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: bolt11, IdempotencyKey: "k1"})
		if err != nil || created || again.ID != p.ID || f.node.payCalls != 1 {
			t.Fatalf("retry: %+v created=%v err=%v calls=%d", again, created, err, f.node.payCalls)
		}
		if _, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: bolt11}); !errors.Is(err, ledger.ErrPaymentInFlight) {
			t.Fatalf("second payment of a pending invoice: %v", err)
		}
		// "Restart": a new ledger over the same database, the node now
		// knowing the payment succeeded.
		f.node.payments[p.Lightning.PaymentHash] = &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 42}
		restarted := ledger.New(db, f.node, nil, ledger.Config{}, nil)
		if err := restarted.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := restarted.Payment(ctx, f.wallet, p.ID)
		if err != nil || got.Status != "Settled" || *got.FeeMsat != 42 {
			t.Fatalf("after reconcile: %+v %v", got, err)
		}
		if b := f.balance(t); b != (wallet.Balance{AvailableMsat: 1_000_000 - 300_042, ReceivedMsat: 1_000_000, SentMsat: 300_000, FeesPaidMsat: 42}) {
			t.Fatalf("balance = %+v", b)
		}
		// Reconciling again changes nothing.
		if err := restarted.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if b := f.balance(t); b.FeesPaidMsat != 42 || b.SentMsat != 300_000 {
			t.Fatalf("second reconcile moved money: %+v", b)
		}
		f.check(t)
	})
}

func TestReconcileFailsPaymentsTheNodeNeverSaw(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("timeout")
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: f.node.external(10_000)})
		if err != nil {
			t.Fatal(err)
		}
		// Too young: it may still be in flight, so it is left alone.
		if err := f.ledger.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.ledger.Payment(ctx, "", p.ID); got.Status != "Pending" {
			t.Fatalf("young unknown payment = %s", got.Status)
		}
		later := ledger.New(db, f.node, nil, ledger.Config{}, nil)
		later.SetClock(func() time.Time { return time.Now().Add(5 * time.Minute) })
		if err := later.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := later.Payment(ctx, "", p.ID); got.Status != "Failed" {
			t.Fatalf("old unknown payment = %s", got.Status)
		}
		if b := f.balance(t); b.AvailableMsat != 1_000_000 || b.ReservedMsat != 0 {
			t.Fatalf("reserve not released: %+v", b)
		}
		f.check(t)
	})
}

func TestReconcileCreditsInvoicesPaidWhileDown(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1)
		inv, err := f.ledger.CreateInvoice(ctx, f.wallet, ledger.NewInvoice{AmountMsat: 9_000})
		if err != nil {
			t.Fatal(err)
		}
		f.node.invoices[inv.LnInvoice.PaymentHash] = &ledger.InvoiceSettlement{
			PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: 9_000, Settled: true, SettledAt: time.Now()}
		for range 2 {
			if err := f.ledger.Reconcile(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if b := f.balance(t); b.AvailableMsat != 9_001 || b.ReceivedMsat != 9_001 {
			t.Fatalf("balance = %+v", b)
		}
		f.check(t)
	})
}

func TestCheckFindsBreaches(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 5_000)
		f.check(t)
		for _, tamper := range []string{
			"UPDATE wallets SET available_msat = available_msat + 1",
			"UPDATE wallets SET available_msat = available_msat - 1, sent_msat = sent_msat + 1",
			"UPDATE wallets SET received_msat = received_msat + 1, available_msat = available_msat + 1",
		} {
			if _, err := db.W.ExecContext(ctx, tamper); err != nil {
				t.Fatal(err)
			}
			breaches, err := f.ledger.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(breaches) != 1 || breaches[0].WalletID != f.wallet {
				t.Fatalf("after %q: breaches = %+v", tamper, breaches)
			}
			// Undo, so each tamper is judged alone.
			if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = 5000, reserved_msat = 0, received_msat = 5000, sent_msat = 0, fees_paid_msat = 0"); err != nil {
				t.Fatal(err)
			}
		}
		f.check(t)
	})
}
