package lnd_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// proof fails t unless preimage is lowercase hex whose sha256 is hash.
func proof(t *testing.T, what string, preimage *string, hash string) {
	t.Helper()
	if preimage == nil {
		t.Fatalf("%s: no payment_preimage", what)
	}
	raw, err := hex.DecodeString(*preimage)
	if err != nil || *preimage != strings.ToLower(*preimage) {
		t.Fatalf("%s: payment_preimage %q is not lowercase hex", what, *preimage)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != hash {
		t.Fatalf("%s: sha256(payment_preimage) = %x, want %s", what, sum, hash)
	}
}

// noProof fails t if the record, as the API writes it, shows a preimage.
func noProof(t *testing.T, what string, record any) {
	t.Helper()
	b, err := json.Marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "payment_preimage") {
		t.Fatalf("%s shows a preimage: %s", what, b)
	}
}

// Proof of payment on LND: an invoice the peer paid shows the preimage
// Hearth drew; a payment to the peer carries the peer's; an internal
// payment between two wallets carries the payee invoice's, in the answer,
// by id and in a replay; a failed payment and a pending invoice carry
// none.
func TestProofOfPaymentOnLND(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice, bob := h.Wallet("alice"), h.Wallet("bob")

		funded := h.fund(alice, 600_000)
		got, err := h.Led.Invoice(ctx, alice, funded.ID)
		if err != nil {
			t.Fatal(err)
		}
		proof(t, "the invoice the peer paid", got.LnInvoice.PaymentPreimage, funded.LnInvoice.PaymentHash)

		bolt11, hash, err := net.Peer.AddInvoice(ctx, 40_000, "proof")
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: bolt11, IdempotencyKey: "out"})
		if err != nil || out.Status != ledger.StatusSettled {
			t.Fatalf("Pay = %+v, %v", out, err)
		}
		proof(t, "the payment to the peer", out.Lightning.PaymentPreimage, hash)
		replay, created, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: bolt11, IdempotencyKey: "out"})
		if err != nil || created {
			t.Fatalf("replay: created %v, %v", created, err)
		}
		proof(t, "the replayed payment to the peer", replay.Lightning.PaymentPreimage, hash)

		pending := h.Invoice(bob, 70_000)
		got, err = h.Led.Invoice(ctx, bob, pending.ID)
		if err != nil {
			t.Fatal(err)
		}
		noProof(t, "a Pending invoice", got)
		in, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: pending.LnInvoice.Bolt11, IdempotencyKey: "in"})
		if err != nil || in.Ledger != ledger.LedgerInternal {
			t.Fatalf("Pay = %+v, %v", in, err)
		}
		ih := pending.LnInvoice.PaymentHash
		proof(t, "the internal payment", in.Internal.PaymentPreimage, ih)
		byID, err := h.Led.Payment(ctx, alice, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		proof(t, "the internal payment by id", byID.Internal.PaymentPreimage, ih)
		replay, created, err = h.Led.Pay(ctx, alice, ledger.PayRequest{Input: pending.LnInvoice.Bolt11, IdempotencyKey: "in"})
		if err != nil || created {
			t.Fatalf("replay: created %v, %v", created, err)
		}
		proof(t, "the replayed internal payment", replay.Internal.PaymentPreimage, ih)
		got, err = h.Led.Invoice(ctx, bob, pending.ID)
		if err != nil || got.Status != ledger.StatusSettled {
			t.Fatalf("invoice = %+v, %v", got, err)
		}
		proof(t, "the payee's invoice paid inside", got.LnInvoice.PaymentPreimage, ih)

		failed, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: strangerInvoice(t, 10_000)})
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("Pay = %+v, %v", failed, err)
		}
		noProof(t, "a Failed payment", failed)
		h.Check()
	})
}
