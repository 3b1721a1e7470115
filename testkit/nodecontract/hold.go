package nodecontract

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// Miner is a Network whose chain the test moves on: the deadline of a
// hold invoice is a block height.
type Miner interface {
	// Mine mines blocks and waits until the nodes have seen them.
	Mine(ctx context.Context, blocks int) error
}

// holdInvoices: the peer pays a hold invoice of Hearth's and the node
// holds the payment (Accepted, with the block height its HTLCs expire
// at); the owner settles it (the peer's payment succeeds, the owner is
// credited once) or cancels it (the peer's fails). Another wallet of the
// instance pays two more, held in the ledger with the payer's reserve
// (heldInside). One is held across a restart of Hearth and settled after
// it. One is left until its deadline, and Hearth cancels it before the
// node would.
func holdInvoices(t *testing.T, h *hearth) {
	if _, ok := h.node.(ledger.HoldNode); !ok {
		t.Skip("this backend holds no invoices")
	}
	ctx := context.Background()
	bob := h.Wallet("bob")
	received := int64(0)

	settled := h.heldByPeer(bob, 21_000)
	if settled.inv.SettleDeadline == nil || settled.inv.SettleBy == nil {
		t.Fatalf("held at the node without a deadline: %+v", settled.inv)
	}
	if _, err := h.Led.SettleHold(ctx, bob, settled.inv.ID, settled.preimage); err != nil {
		t.Fatal(err)
	}
	if err := settled.wait(); err != nil {
		t.Fatalf("the peer's payment of a settled hold invoice: %v", err)
	}
	h.WaitInvoice(settled.inv.ID, ledger.StatusSettled)
	received += 21_000
	if b := h.Balance(bob); b != (wallet.Balance{AvailableMsat: received, ReceivedMsat: received}) {
		t.Fatalf("bob after settling = %+v", b)
	}

	cancelled := h.heldByPeer(bob, 9_000)
	if _, err := h.Led.CancelHold(ctx, bob, cancelled.inv.ID); err != nil {
		t.Fatal(err)
	}
	if err := cancelled.wait(); err == nil {
		t.Fatal("the peer's payment of a cancelled hold invoice succeeded")
	}

	received += h.heldInside(bob)

	// Held across a restart of Hearth: the node keeps the HTLCs, the
	// books keep the invoice, and the restarted Hearth settles it.
	restarted := h.heldByPeer(bob, 13_000)
	h.stop()
	h.start()
	if _, err := h.Led.SettleHold(ctx, bob, restarted.inv.ID, restarted.preimage); err != nil {
		t.Fatal(err)
	}
	if err := restarted.wait(); err != nil {
		t.Fatalf("the peer's payment settled after a restart: %v", err)
	}
	received += 13_000

	if m, ok := h.net.(Miner); ok {
		late := h.heldByPeer(bob, 5_000)
		// The chain moves to within the margin of the HTLCs' expiry.
		height := func() int64 {
			info, err := h.node.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return int64(info.BlockHeight)
		}
		if err := m.Mine(ctx, int(*late.inv.SettleDeadline-height())-18); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 30*time.Second, func() error {
			if _, err := h.Led.CancelOverdueHolds(ctx); err != nil {
				return err
			}
			inv, err := h.Led.Invoice(ctx, bob, late.inv.ID)
			if err == nil && inv.Status != ledger.StatusCancelled {
				err = fmt.Errorf("invoice %s at height %d, deadline %d", inv.Status, height(), *late.inv.SettleDeadline)
			}
			return err
		})
		if err := late.wait(); err == nil {
			t.Fatal("the peer's payment of a hold invoice past its deadline succeeded")
		}
	}
	h.WaitInvoice(cancelled.inv.ID, ledger.StatusCancelled)
	if b := h.Balance(bob); b != (wallet.Balance{AvailableMsat: received, ReceivedMsat: received}) {
		t.Fatalf("bob at the end = %+v", b)
	}
}

// held is a hold invoice of Hearth's that the peer is paying.
type held struct {
	inv      *ledger.Invoice // as Accepted
	preimage string
	paid     chan error
}

// wait returns the outcome of the peer's payment.
func (p *held) wait() error {
	select {
	case err := <-p.paid:
		return err
	case <-time.After(90 * time.Second):
		return errors.New("the peer's payment did not end in 90 s")
	}
}

// heldByPeer makes a hold invoice of msat into walletID, has the peer pay
// it, and waits until the ledger has it Accepted.
func (h *hearth) heldByPeer(walletID string, msat int64) *held {
	h.T.Helper()
	ctx := context.Background()
	preimage, inv := h.holdInvoice(walletID, msat)
	p := &held{preimage: preimage, paid: make(chan error, 1)}
	go func() { p.paid <- h.net.PeerPays(context.Background(), inv.LnInvoice.Bolt11) }()
	h.WaitInvoice(inv.ID, ledger.StatusAccepted)
	var err error
	if p.inv, err = h.Led.Invoice(ctx, walletID, inv.ID); err != nil {
		h.T.Fatal(err)
	}
	if *p.inv.AmountReceivedMsat != msat || p.inv.Ledger != ledger.LedgerLightning {
		h.T.Fatalf("accepted = %+v", p.inv)
	}
	if b := h.Balance(walletID); b.ReservedMsat != 0 {
		h.T.Fatalf("a held payment from outside reserved %+v", b)
	}
	return p
}

// heldInside has another wallet of the instance, alice, pay two hold
// invoices of walletID's, and returns what walletID received. The ledger
// holds such a payment itself: the invoice turns Accepted at once, and
// the payer's payment stays Pending with the amount reserved. Settled,
// the payment is Settled with the preimage, the reserve spent and the
// owner credited once; cancelled, the payment is Failed and the reserve
// released. The node, which also holds the invoice open for outside
// payers, must not get in the way of either.
func (h *hearth) heldInside(walletID string) (received int64) {
	h.T.Helper()
	ctx := context.Background()
	alice := h.Wallet("alice")
	h.fund(alice, 50_000)
	owner := h.Balance(walletID)

	settled := h.heldByWallet(alice, walletID, 17_000)
	if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 33_000, ReservedMsat: 17_000, ReceivedMsat: 50_000}) {
		h.T.Fatalf("alice while her payment is held = %+v", b)
	}
	if b := h.Balance(walletID); b != owner {
		h.T.Fatalf("the owner credited before settling: %+v, was %+v", b, owner)
	}
	if _, err := h.Led.SettleHold(ctx, walletID, settled.inv.ID, settled.preimage); err != nil {
		h.T.Fatal(err)
	}
	h.WaitInvoice(settled.inv.ID, ledger.StatusSettled)
	p := h.WaitPayment(settled.payment.ID, ledger.StatusSettled)
	if p.Internal == nil || p.Internal.PaymentPreimage == nil || *p.Internal.PaymentPreimage != settled.preimage || p.FeeMsat == nil || *p.FeeMsat != 0 {
		h.T.Fatalf("alice's payment of a hold invoice settled = %+v", p)
	}
	spent := wallet.Balance{AvailableMsat: 33_000, ReceivedMsat: 50_000, SentMsat: 17_000}
	if b := h.Balance(alice); b != spent {
		h.T.Fatalf("alice after settling = %+v", b)
	}
	owner.AvailableMsat += 17_000
	owner.ReceivedMsat += 17_000
	if b := h.Balance(walletID); b != owner {
		h.T.Fatalf("the owner after settling = %+v, want %+v", b, owner)
	}

	cancelled := h.heldByWallet(alice, walletID, 6_000)
	if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 27_000, ReservedMsat: 6_000, ReceivedMsat: 50_000, SentMsat: 17_000}) {
		h.T.Fatalf("alice while her second payment is held = %+v", b)
	}
	if _, err := h.Led.CancelHold(ctx, walletID, cancelled.inv.ID); err != nil {
		h.T.Fatal(err)
	}
	h.WaitInvoice(cancelled.inv.ID, ledger.StatusCancelled)
	if p := h.WaitPayment(cancelled.payment.ID, ledger.StatusFailed); p.Error == nil {
		h.T.Fatalf("alice's payment of a hold invoice cancelled = %+v", p)
	}
	if b := h.Balance(alice); b != spent {
		h.T.Fatalf("alice after the cancel = %+v", b)
	}
	if b := h.Balance(walletID); b != owner {
		h.T.Fatalf("the owner after the cancel = %+v, want %+v", b, owner)
	}
	return 17_000
}

// heldInternally is a hold invoice of Hearth's that another wallet of
// the instance paid.
type heldInternally struct {
	inv      *ledger.Invoice // as Accepted
	payment  *ledger.Payment // the payer's, Pending
	preimage string
}

// heldByWallet makes a hold invoice of msat into walletID, has payer pay
// it, and checks that the ledger holds it: the invoice Accepted inside,
// the payment Pending with msat reserved.
func (h *hearth) heldByWallet(payer, walletID string, msat int64) *heldInternally {
	h.T.Helper()
	ctx := context.Background()
	preimage, inv := h.holdInvoice(walletID, msat)
	p, _, err := h.Led.Pay(ctx, payer, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
	if err != nil {
		h.T.Fatalf("paying a hold invoice from inside: %v", err)
	}
	if p.Status != ledger.StatusPending || p.Ledger != ledger.LedgerInternal || p.AmountMsat != msat {
		h.T.Fatalf("payment of a hold invoice from inside = %+v", p)
	}
	got, err := h.Led.Invoice(ctx, walletID, inv.ID)
	if err != nil {
		h.T.Fatal(err)
	}
	if got.Status != ledger.StatusAccepted || got.Ledger != ledger.LedgerInternal || got.AmountReceivedMsat == nil ||
		*got.AmountReceivedMsat != msat || got.SettleBy == nil {
		h.T.Fatalf("hold invoice paid from inside = %+v", got)
	}
	return &heldInternally{inv: got, payment: p, preimage: preimage}
}

// holdInvoice makes a hold invoice of msat into walletID for a fresh
// preimage (min_final_cltv_expiry_delta 40), and returns both. A node
// that holds no invoices as configured skips the test.
func (h *hearth) holdInvoice(walletID string, msat int64) (preimage string, inv *ledger.Invoice) {
	h.T.Helper()
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		h.T.Fatal(err)
	}
	sum := sha256.Sum256(raw[:])
	delta := int64(40)
	inv, err := h.Led.CreateHoldInvoice(context.Background(), walletID, ledger.NewHoldInvoice{
		NewInvoice: ledger.NewInvoice{AmountMsat: msat}, PaymentHash: hex.EncodeToString(sum[:]), MinFinalCLTVExpiryDelta: &delta})
	if errors.Is(err, ledger.ErrNoHoldInvoices) {
		h.T.Skipf("this node holds no invoices as configured: %v", err)
	}
	if err != nil {
		h.T.Fatal(err)
	}
	return hex.EncodeToString(raw[:]), inv
}
