package lnd_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

func TestNodeInfo(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx := context.Background()
	info, err := h.node.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Backend != "lnd" || info.Network != "regtest" || info.Pubkey != net.Hearth.Pubkey ||
		info.Channels != 1 || !info.ExternalPayments || info.LocalMsat <= 0 || info.RemoteMsat <= 0 || info.BlockHeight < 500 {
		t.Fatalf("info = %+v", info)
	}
	if err := h.node.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
}

func TestInvoiceWithDescriptionHash(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	hash := sha256.Sum256([]byte(`[["text/plain","zap"]]`))
	inv, err := h.node.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 21_000, DescriptionHash: hash[:], Expiry: 3600e9})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := h.node.Decode(inv.Bolt11)
	if err != nil {
		t.Fatal(err)
	}
	if dec.DescriptionHash != hex.EncodeToString(hash[:]) || dec.Description != "" || dec.AmountMsat != 21_000 ||
		dec.PaymentHash != inv.PaymentHash || dec.PayeePubkey != net.Hearth.Pubkey {
		t.Fatalf("decoded = %+v, invoice = %+v", dec, inv)
	}
	pre, _ := hex.DecodeString(inv.Preimage)
	if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != inv.PaymentHash {
		t.Fatal("the preimage does not hash to the payment hash")
	}
}

// The peer pays a Hearth invoice: Settled, credited once. Then Hearth is
// stopped, the peer pays another, and the restarted Hearth credits it at
// start, once.
func TestReceive(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice := h.Wallet("alice")
		first := h.fund(alice, 150_000)
		if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 150_000, ReceivedMsat: 150_000}) {
			t.Fatalf("balance after the first payment = %+v", b)
		}
		got, err := h.Led.Invoice(ctx, alice, first.ID)
		if err != nil || got.Ledger != ledger.LedgerLightning || *got.AmountReceivedMsat != 150_000 || got.PaymentTime == nil {
			t.Fatalf("invoice = %+v %v", got, err)
		}

		h.stop()
		second := h.Invoice(alice, 70_000)
		if _, err := net.Peer.Pay(ctx, second.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.Led.Invoice(ctx, alice, second.ID); got.Status != ledger.StatusPending {
			t.Fatalf("invoice paid while Hearth was stopped = %s before the restart", got.Status)
		}
		h.start()
		h.WaitInvoice(second.ID, ledger.StatusSettled)
		if err := h.Led.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 220_000, ReceivedMsat: 220_000}) {
			t.Fatalf("balance after the restart = %+v", b)
		}
		h.Check()
	})
}
