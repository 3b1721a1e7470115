package nodecontract

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Payments the node cannot or must not make. Over the channel's capacity
// the node refuses: the payment fails with its reason and the reserve goes
// back. An amount other than the invoice's, and an expired invoice, the
// ledger refuses before the node is asked: no payment, nothing reserved,
// the node made none.
func refusals(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	// A test-only credit the node does not back: enough to ask for more
	// than the channel holds, so that the node, not the ledger, refuses.
	credit := h.Invoice(alice, 1_000)
	if _, err := h.Led.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: credit.LnInvoice.PaymentHash, AmountMsat: 20_000_000_000}); err != nil {
		t.Fatal(err)
	}
	if err := h.node.CancelInvoice(ctx, credit.LnInvoice.PaymentHash); err != nil {
		t.Fatal(err)
	}
	before := h.Balance(alice)

	// An invoice without an amount, paid beyond the channel's capacity.
	open, openHash, err := h.net.PeerInvoice(ctx, 0, "anything")
	if err != nil {
		t.Fatal(err)
	}
	amount := int64(15_000_000_000)
	p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: open, AmountMsat: &amount})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != ledger.StatusFailed || p.Error == nil || *p.Error == "" {
		t.Fatalf("over-capacity payment = %+v", p)
	}
	t.Logf("over-capacity payment failed: %s", *p.Error)
	if b := h.Balance(alice); b != before {
		t.Fatalf("balance after the over-capacity payment = %+v, want %+v", b, before)
	}
	if _, err := h.net.PaymentCount(ctx, openHash); err != nil {
		t.Fatal(err)
	}

	// An amount other than the invoice's.
	priced, pricedHash, err := h.net.PeerInvoice(ctx, 100_000, "priced")
	if err != nil {
		t.Fatal(err)
	}
	other := int64(90_000)
	if p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: priced, AmountMsat: &other}); !errors.Is(err, ledger.ErrAmountMismatch) {
		t.Fatalf("paying 90,000 msat of a 100,000 msat invoice = %+v, %v; want ErrAmountMismatch", p, err)
	}
	if n, err := h.net.PaymentCount(ctx, pricedHash); err != nil || n != 0 {
		t.Fatalf("the node made %d payments of the mispriced one (%v)", n, err)
	}

	// An expired invoice.
	if p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: expiredInvoice(t, 10_000)}); !errors.Is(err, ledger.ErrInvoiceExpired) {
		t.Fatalf("paying an expired invoice = %+v, %v; want ErrInvoiceExpired", p, err)
	}
	if b := h.Balance(alice); b != before {
		t.Fatalf("balance after the refusals = %+v, want %+v", b, before)
	}
}

// expiredInvoice is a regtest invoice, of a key nobody has, that expired
// an hour ago.
func expiredInvoice(t testing.TB, msat int64) string {
	return StrangerInvoice(t, msat, time.Now().Add(-2*time.Hour), time.Hour)
}

// StrangerInvoice is a valid regtest invoice of a key no node has, made at
// created and valid for expiry: a payment nobody can route, or with an
// old created, one already expired.
func StrangerInvoice(t testing.TB, msat int64, created time.Time, expiry time.Duration) string {
	t.Helper()
	key, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	var preimage, secret [32]byte
	rand.Read(preimage[:])
	rand.Read(secret[:])
	inv, err := zpay32.NewInvoice(&chaincfg.RegressionNetParams, sha256.Sum256(preimage[:]), created,
		zpay32.Amount(lnwire.MilliSatoshi(msat)), zpay32.Description("nowhere"), zpay32.PaymentAddr(secret), zpay32.Expiry(expiry),
		zpay32.Features(lnwire.NewFeatureVector(lnwire.NewRawFeatureVector(lnwire.TLVOnionPayloadRequired, lnwire.PaymentAddrRequired), lnwire.Features)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := inv.Encode(zpay32.MessageSigner{SignCompact: func(msg []byte) ([]byte, error) {
		return ecdsa.SignCompact(key, chainhash.HashB(msg), true), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
