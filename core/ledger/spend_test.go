package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// spendingNode is the scripted node with an on-chain wallet whose
// publication a test decides.
type spendingNode struct {
	ledger.Node
	mu      sync.Mutex
	n       int
	publish func(sp *ledger.PreparedSpend) error // nil: published
	known   map[string]*ledger.ChainTx
	leased  map[string]bool
}

const spendFeeSat = 141

func (s *spendingNode) PrepareSpend(_ context.Context, lease string, req ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.leased[lease] = true
	return &ledger.PreparedSpend{TxID: fmt.Sprintf("%064x", s.n), Address: req.Address, AmountSat: req.AmountSat, FeeSat: spendFeeSat}, nil
}

func (s *spendingNode) PublishSpend(_ context.Context, sp *ledger.PreparedSpend) error {
	s.mu.Lock()
	publish := s.publish
	s.mu.Unlock()
	if publish != nil {
		return publish(sp)
	}
	s.learn(sp.TxID, 0)
	return nil
}

func (s *spendingNode) ReleaseSpend(_ context.Context, lease string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.leased, lease)
	return nil
}

func (s *spendingNode) LookupChainTx(_ context.Context, txid string) (*ledger.ChainTx, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tx, ok := s.known[txid]; ok {
		c := *tx
		return &c, nil
	}
	return nil, ledger.ErrUnknownChainTx
}

// learn has the wallet know txid, with confs confirmations.
func (s *spendingNode) learn(txid string, confs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.known[txid] = &ledger.ChainTx{TxID: txid, Confirmations: confs}
}

func (s *spendingNode) leases() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.leased)
}

// toAddress resolves every input as an on-chain destination.
type toAddress struct{}

func (toAddress) ResolvePayment(_ context.Context, _ string, req ledger.PayRequest, _ bool) (*ledger.Resolved, error) {
	return &ledger.Resolved{Onchain: &ledger.OnchainTarget{Address: req.Input, AmountSat: *req.AmountMsat / 1000}}, nil
}

// spendKit is a funded wallet whose ledger spends through a spendingNode.
func spendKit(t *testing.T, db *store.DB, funds int64) (*fixture, *ledger.Service, *spendingNode) {
	f := newFixture(t, db, funds)
	node := &spendingNode{Node: f.node, known: map[string]*ledger.ChainTx{}, leased: map[string]bool{}}
	led := ledger.New(db, node, nil, ledger.Config{PayTimeout: 10 * time.Second}, nil)
	led.AddResolver(toAddress{})
	return f, led, node
}

func sats(n int64) *int64 { msat := n * 1000; return &msat }

// A publication the network refuses fails the payment at once: its
// reserve and its coins are released. A wallet that has the amount but
// not the fee leases nothing either.
func TestSpendRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f, led, node := spendKit(t, db, 1_000_000_000)
		node.publish = func(*ledger.PreparedSpend) error { return &ledger.PaymentFailure{Reason: "min relay fee not met"} }
		p, _, err := led.Pay(ctx, f.wallet, ledger.PayRequest{Input: "bcrt1qdest", AmountMsat: sats(50_000)})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != ledger.StatusFailed || p.Ledger != ledger.LedgerOnchain || p.Bitcoin == nil || p.Bitcoin.Address != "bcrt1qdest" {
			t.Fatalf("payment = %+v", p)
		}
		if b := f.balance(t); b.AvailableMsat != 1_000_000_000 || b.ReservedMsat != 0 || node.leases() != 0 {
			t.Fatalf("balance %+v, %d leases", b, node.leases())
		}
		// The amount but not the fee.
		node.publish = nil
		_, _, err = led.Pay(ctx, f.wallet, ledger.PayRequest{Input: "bcrt1qdest", AmountMsat: sats(1_000_000)})
		if !errors.Is(err, ledger.ErrInsufficientFunds) || node.leases() != 0 {
			t.Fatalf("over the balance with the fee: %v, %d leases", err, node.leases())
		}
		f.check(t)
	})
}

// A crash between the reserve and the publication (here: a publication
// that never answers): the payment stays Pending while a publication
// could still be under way; then, unknown to the node, it is failed and
// its coins released. One the node knows goes on, and is settled once at
// its first confirmation, at its exact fee, however often reconciled.
func TestSpendReconciled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f, led, node := spendKit(t, db, 1_000_000_000)
		node.publish = func(*ledger.PreparedSpend) error { return errors.New("connection reset") }
		lost, _, err := led.Pay(ctx, f.wallet, ledger.PayRequest{Input: "bcrt1qlost", AmountMsat: sats(100_000)})
		if err != nil || lost.Status != ledger.StatusPending {
			t.Fatalf("lost = %+v, %v", lost, err)
		}
		node.publish = func(sp *ledger.PreparedSpend) error {
			node.learn(sp.TxID, 0) // published, though the answer was lost
			return errors.New("connection reset")
		}
		sent, _, err := led.Pay(ctx, f.wallet, ledger.PayRequest{Input: "bcrt1qsent", AmountMsat: sats(200_000)})
		if err != nil || sent.Status != ledger.StatusPending || *sent.FeeMsat != spendFeeSat*1000 {
			t.Fatalf("sent = %+v, %v", sent, err)
		}
		if b := f.balance(t); b.ReservedMsat != 300_000_000+2*spendFeeSat*1000 {
			t.Fatalf("balance %+v", b)
		}
		// Young: both stay Pending.
		if err := led.ReconcileSpends(ctx, nil, true); err != nil {
			t.Fatal(err)
		}
		if b := f.balance(t); b.ReservedMsat != 300_000_000+2*spendFeeSat*1000 {
			t.Fatalf("a young spend was resolved: %+v", b)
		}
		// Later (a restart): the lost one fails, the other waits.
		led.SetClock(func() time.Time { return time.Now().Add(3 * time.Minute) })
		for range 2 {
			if err := led.ReconcileSpends(ctx, nil, true); err != nil {
				t.Fatal(err)
			}
		}
		if p, _ := led.Payment(ctx, f.wallet, lost.ID); p.Status != ledger.StatusFailed || node.leased[lost.ID] {
			t.Fatalf("lost spend = %+v, leased %v", p, node.leased[lost.ID])
		}
		if p, _ := led.Payment(ctx, f.wallet, sent.ID); p.Status != ledger.StatusPending {
			t.Fatalf("sent spend = %+v", p)
		}
		// Confirmed: settled once, from the listing or from a lookup.
		node.learn(sent.Bitcoin.TxID, 1)
		for range 3 {
			if err := led.ReconcileSpends(ctx, []ledger.ChainTx{{TxID: sent.Bitcoin.TxID, Confirmations: 1}}, false); err != nil {
				t.Fatal(err)
			}
			if err := led.ReconcileSpends(ctx, nil, true); err != nil {
				t.Fatal(err)
			}
		}
		p, _ := led.Payment(ctx, f.wallet, sent.ID)
		b := f.balance(t)
		if p.Status != ledger.StatusSettled || b.SentMsat != 200_000_000 || b.FeesPaidMsat != spendFeeSat*1000 || b.ReservedMsat != 0 ||
			b.AvailableMsat != 1_000_000_000-200_000_000-spendFeeSat*1000 {
			t.Fatalf("settled %+v, balance %+v", p, b)
		}
		f.check(t)
	})
}
