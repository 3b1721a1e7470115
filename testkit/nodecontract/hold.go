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
// credited once) or cancels it (the peer's fails). One is held across a
// restart of Hearth and settled after it. One is left until its
// deadline, and Hearth cancels it before the node would.
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
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		h.T.Fatal(err)
	}
	sum := sha256.Sum256(raw[:])
	delta := int64(40)
	inv, err := h.Led.CreateHoldInvoice(ctx, walletID, ledger.NewHoldInvoice{
		NewInvoice: ledger.NewInvoice{AmountMsat: msat}, PaymentHash: hex.EncodeToString(sum[:]), MinFinalCLTVExpiryDelta: &delta})
	if errors.Is(err, ledger.ErrNoHoldInvoices) {
		h.T.Skipf("this node holds no invoices as configured: %v", err)
	}
	if err != nil {
		h.T.Fatal(err)
	}
	p := &held{preimage: hex.EncodeToString(raw[:]), paid: make(chan error, 1)}
	go func() { p.paid <- h.net.PeerPays(context.Background(), inv.LnInvoice.Bolt11) }()
	h.WaitInvoice(inv.ID, ledger.StatusAccepted)
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
