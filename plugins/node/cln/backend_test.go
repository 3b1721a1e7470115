package cln_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
)

func backend(t *testing.T) (*cln.Node, *clntest.Node) {
	t.Helper()
	d := clntest.Start(t)
	// The double runs no plugins: no guard, and no hold invoices.
	n, err := cln.New(cln.Config{RPCFile: d.Path(), Guard: cln.GuardOff})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, r := range d.Rejected() {
			t.Errorf("the node refused a call as lightningd would: %s", r)
		}
	})
	return n, d
}

func TestConfig(t *testing.T) {
	if _, err := cln.New(cln.Config{}); err == nil || !strings.Contains(err.Error(), "node.cln.rpc_file") {
		t.Fatalf("New without rpc_file: %v", err)
	}
	if _, err := cln.New(cln.Config{RPCFile: "x", Guard: "sometimes"}); err == nil || !strings.Contains(err.Error(), "node.cln.guard") {
		t.Fatalf("New with guard = sometimes: %v", err)
	}
	for _, g := range []string{"", cln.GuardAuto, cln.GuardExternal, cln.GuardOff} {
		if _, err := cln.New(cln.Config{RPCFile: "x", Guard: g}); err != nil {
			t.Fatalf("New with guard = %q: %v", g, err)
		}
	}
}

// Info and Ping read getinfo and listfunds; a node that is gone fails both.
func TestInfo(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	info, err := n.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.NodeInfo{Backend: "cln", Alias: "HEARTHDOUBLE", Pubkey: d.Pubkey(), Network: "regtest", BlockHeight: 800,
		Channels: 1, ExternalPayments: true, LocalMsat: 6_000_000_000, RemoteMsat: 4_000_000_000, OnchainSat: 250_000_000}
	if info != want {
		t.Fatalf("info = %+v, want %+v", info, want)
	}
	if err := n.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	d.Kill()
	if err := n.Ping(ctx); err == nil {
		t.Fatal("ping succeeded while the node is down")
	}
	if _, err := n.Info(ctx); err == nil {
		t.Fatal("info succeeded while the node is down")
	}
}

// A description hash is committed to with deschashonly, given the text;
// without the text the backend refuses before calling the node.
func TestInvoiceWithDescriptionHash(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	text := `[["text/plain","zap"]]`
	hash := sha256.Sum256([]byte(text))
	inv, err := n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 21_000, DescriptionHash: hash[:], HashedDescription: text, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := n.Decode(inv.Bolt11)
	if err != nil {
		t.Fatal(err)
	}
	if dec.DescriptionHash != hex.EncodeToString(hash[:]) || dec.Description != "" || dec.AmountMsat != 21_000 ||
		dec.PaymentHash != inv.PaymentHash || dec.PayeePubkey != d.Pubkey() || inv.Expiry != time.Hour || inv.MinFinalCLTVExpiryDelta != 18 {
		t.Fatalf("decoded = %+v, invoice = %+v", dec, inv)
	}
	pre, _ := hex.DecodeString(inv.Preimage)
	if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != inv.PaymentHash {
		t.Fatal("the preimage does not hash to the payment hash")
	}
	calls := d.Calls("invoice")
	_, err = n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 21_000, DescriptionHash: hash[:], Expiry: time.Hour})
	if !errors.Is(err, cln.ErrNoHashedText) || d.Calls("invoice") != calls {
		t.Fatalf("a hash without its text: %v (%d calls)", err, d.Calls("invoice")-calls)
	}
}

// CancelInvoice deletes the unpaid invoice; cancelling it again, or an
// invoice the node never had, is no error. A paid invoice is not deleted.
func TestCancelInvoice(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	inv, err := n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 5_000, Description: "x", Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := n.CancelInvoice(ctx, inv.PaymentHash); err != nil {
			t.Fatal(err)
		}
	}
	if s := d.InvoiceState(inv.PaymentHash); s != "deleted" {
		t.Fatalf("state %s", s)
	}
	if _, err := n.LookupInvoice(ctx, inv.PaymentHash); !errors.Is(err, ledger.ErrUnknownInvoice) {
		t.Fatalf("lookup of a deleted invoice: %v", err)
	}
	paid, err := n.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: 5_000, Description: "y", Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.PayInvoice(paid.Bolt11, 0); err != nil {
		t.Fatal(err)
	}
	if err := n.CancelInvoice(ctx, paid.PaymentHash); !errors.Is(err, ledger.ErrSettledAtNode) {
		t.Fatalf("cancelling a paid invoice: %v, want ErrSettledAtNode", err)
	}
	st, err := n.LookupInvoice(ctx, paid.PaymentHash)
	if err != nil || !st.Settled || st.AmountMsat != 5_000 || st.Preimage != paid.Preimage {
		t.Fatalf("lookup = %+v %v", st, err)
	}
}
