package embedded_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/bolt11"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

func TestInvoiceRoundTripAndStableKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.SQLite(t)
	n, err := embedded.New(ctx, db, "regtest")
	if err != nil {
		t.Fatal(err)
	}
	again, err := embedded.New(ctx, db, "regtest")
	if err != nil || again.Pubkey() != n.Pubkey() {
		t.Fatalf("the node key changed across starts: %v", err)
	}
	inv, err := n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 123_456, Description: "coffee", Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inv.Bolt11, "lnbcrt1234560p1") {
		t.Fatalf("bolt11 = %s", inv.Bolt11)
	}
	pre, _ := hex.DecodeString(inv.Preimage)
	if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != inv.PaymentHash {
		t.Fatal("payment hash is not the preimage's SHA-256")
	}
	d, err := n.Decode(inv.Bolt11)
	if err != nil {
		t.Fatal(err)
	}
	if d.AmountMsat != 123_456 || d.Description != "coffee" || d.PaymentHash != inv.PaymentHash ||
		d.PayeePubkey != n.Pubkey() || d.ExpiresAt.Sub(d.CreatedAt) != time.Hour {
		t.Fatalf("decoded = %+v", d)
	}
	// The signature recovers the node key: another network refuses it.
	if _, err := bolt11.Decode(inv.Bolt11, &chaincfg.MainNetParams); err == nil {
		t.Fatal("a regtest invoice decoded as mainnet")
	}
	hashed, err := n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 1, DescriptionHash: make([]byte, 32), Expiry: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := n.Decode(hashed.Bolt11); err != nil || d.DescriptionHash != strings.Repeat("0", 64) {
		t.Fatalf("description hash: %+v %v", d, err)
	}
}

func TestExternalPaymentsAreRefused(t *testing.T) {
	t.Parallel()
	n, err := embedded.New(context.Background(), storetest.SQLite(t), "regtest")
	if err != nil {
		t.Fatal(err)
	}
	if n.ExternalPayments() {
		t.Fatal("the embedded node claims to pay externally")
	}
	_, err = n.Pay(context.Background(), ledger.NodePayment{})
	var failure *ledger.PaymentFailure
	if err == nil || !asFailure(err, &failure) {
		t.Fatalf("Pay = %v, want a definite failure", err)
	}
	if _, err := embedded.New(context.Background(), storetest.SQLite(t), "moonnet"); err == nil {
		t.Fatal("unknown network accepted")
	}
}

func asFailure(err error, target **ledger.PaymentFailure) bool {
	f, ok := err.(*ledger.PaymentFailure)
	*target = f
	return ok
}

func FuzzDecode(f *testing.F) {
	n, err := embedded.New(context.Background(), storetest.SQLite(f), "regtest")
	if err != nil {
		f.Fatal(err)
	}
	inv, err := n.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 1000, Description: "x", Expiry: time.Hour})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(inv.Bolt11)
	f.Add("lnbcrt1")
	f.Add("lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypq")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := n.Decode(s)
		if err == nil && (len(d.PaymentHash) != 64 || d.PayeePubkey == "") {
			t.Fatalf("decoded without hash or payee: %+v", d)
		}
	})
}
