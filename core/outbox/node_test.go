package outbox_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
)

// testNode issues invoices the ledger settles inside the instance, and
// pays external ones with the outcome fail says.
type testNode struct {
	mu      sync.Mutex
	n       int
	decoded map[string]*ledger.DecodedInvoice
	fail    bool
}

func (n *testNode) Info(context.Context) (ledger.NodeInfo, error) {
	return ledger.NodeInfo{Backend: "test", ExternalPayments: true}, nil
}

func (n *testNode) CreateInvoice(_ context.Context, req ledger.NodeInvoiceRequest) (*ledger.NodeInvoice, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	preimage, hash := n.next()
	now := time.Now()
	bolt11 := "lnbcrt" + hash
	n.decoded[bolt11] = &ledger.DecodedInvoice{PaymentHash: hash, AmountMsat: req.AmountMsat, PayeePubkey: "us", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	return &ledger.NodeInvoice{Bolt11: bolt11, PaymentHash: hash, PaymentSecret: hash, PayeePubkey: "us", CreatedAt: now, Expiry: time.Hour, Preimage: preimage}, nil
}

func (n *testNode) next() (preimage, hash string) {
	n.n++
	preimage = fmt.Sprintf("%064x", n.n)
	raw, _ := hex.DecodeString(preimage)
	h := sha256.Sum256(raw)
	return preimage, hex.EncodeToString(h[:])
}

// external makes an invoice of another node.
func (n *testNode) external(amount int64) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, hash := n.next()
	bolt11 := "lnbcrt" + hash
	n.decoded[bolt11] = &ledger.DecodedInvoice{PaymentHash: hash, AmountMsat: amount, PayeePubkey: "them", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	return bolt11
}

func (n *testNode) Decode(bolt11 string) (*ledger.DecodedInvoice, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if d, ok := n.decoded[bolt11]; ok {
		return d, nil
	}
	return nil, errors.New("unknown invoice")
}

func (n *testNode) Pay(context.Context, ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail {
		return nil, &ledger.PaymentFailure{Reason: "no route"}
	}
	return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 1000, Preimage: fmt.Sprintf("%064x", 7)}, nil
}

func (n *testNode) LookupPayment(context.Context, string) (*ledger.NodePaymentResult, error) {
	return &ledger.NodePaymentResult{State: ledger.PaymentUnknown}, nil
}

func (n *testNode) LookupInvoice(context.Context, string) (*ledger.InvoiceSettlement, error) {
	return nil, ledger.ErrUnknownInvoice
}

func (n *testNode) CancelInvoice(context.Context, string) error { return nil }

func (n *testNode) SubscribeInvoices(context.Context) (<-chan ledger.InvoiceSettlement, error) {
	return make(chan ledger.InvoiceSettlement), nil
}

// fixture is a ledger with two wallets, alice funded, and its outbox.
type fixture struct {
	db           *store.DB
	node         *testNode
	bus          *event.Bus
	ledger       *ledger.Service
	box          *outbox.Outbox
	alice, bob   string
	fundingEvent int64 // the funding invoice's event
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{db: db, node: &testNode{decoded: map[string]*ledger.DecodedInvoice{}}, bus: event.NewBus()}
	f.ledger = ledger.New(db, f.node, f.bus, ledger.Config{}, nil)
	ws := wallet.NewService(db)
	a, err := ws.Ensure(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ws.Ensure(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	f.alice, f.bob = a.ID, b.ID
	f.box = f.open(t, outbox.Config{})
	inv, err := f.ledger.CreateInvoice(ctx, f.alice, ledger.NewInvoice{AmountMsat: 10_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: 10_000_000}); err != nil {
		t.Fatal(err)
	}
	f.fundingEvent = waitHead(t, f.box, 1)
	return f
}

// open returns an outbox of the fixture's database, run until the test ends.
func (f *fixture) open(t *testing.T, cfg outbox.Config) *outbox.Outbox {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.Wake == nil {
		cfg.Wake = f.bus
	}
	box, err := outbox.New(ctx, f.db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); box.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return box
}

// waitHead waits until box's head is atLeast, and returns it.
func waitHead(t *testing.T, box *outbox.Outbox, atLeast int64) int64 {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		head, changed := box.Head()
		if head >= atLeast {
			return head
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("outbox head %d, want at least %d", head, atLeast)
		}
	}
}

// payInternal pays a new invoice of bob's from alice's wallet.
func (f *fixture) payInternal(t *testing.T, amount int64) (*ledger.Invoice, *ledger.Payment) {
	t.Helper()
	ctx := context.Background()
	inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: amount})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
	if err != nil {
		t.Fatal(err)
	}
	return inv, p
}
