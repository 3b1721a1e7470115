package nwc_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// newSecret is a fresh preimage and its payment hash, hex.
func newSecret(t *testing.T) (preimage, hash string) {
	t.Helper()
	var p [32]byte
	if _, err := rand.Read(p[:]); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(p[:])
	return hex.EncodeToString(p[:]), hex.EncodeToString(h[:])
}

// TestAlbySDKHoldInvoices: an app written with @getalby/sdk makes a hold
// invoice, hears hold_invoice_accepted when a payer of the instance pays
// it, reads it "accepted", settles it with its preimage; then makes
// another and cancels it once paid. The payer pays once, and gets the
// second payment back.
func TestAlbySDKHoldInvoices(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 0, auth.AllScopes)
		bob, bobW := k.user("bob", 50_000, auth.AllScopes)
		secret, pub := appKey(t)
		r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "Escrow", "pubkey": pub})
		if r.Code != http.StatusCreated {
			t.Fatalf("pairing: %d %s", r.Code, r.Body)
		}
		var c nwc.Connection
		r.decode(t, &c)
		preimage, hash := newSecret(t)
		_, cancelHash := newSecret(t)
		app := runSDK(t, map[string]any{"mode": "hold", "relay": c.Relays[0], "walletPubkey": c.WalletPubkey, "secret": secret,
			"preimage": preimage, "hash": hash, "cancelHash": cancelHash})

		type tx struct {
			State          string `json:"state"`
			Invoice        string `json:"invoice"`
			PaymentHash    string `json:"payment_hash"`
			Amount         int64  `json:"amount"`
			Preimage       string `json:"preimage"`
			SettleDeadline *int64 `json:"settle_deadline"`
		}
		pay := func(bolt11 string) {
			t.Helper()
			if r := k.do(bob, "POST", "/v1/me/payments", map[string]any{"input": bolt11}); r.Code != http.StatusCreated {
				t.Fatalf("bob pays the hold invoice: %d %s", r.Code, r.Body)
			}
		}
		var made, accepted, looked tx
		app.next("hold", &made)
		if made.State != "pending" || made.PaymentHash != hash || made.Amount != 8_000 {
			t.Fatalf("make_hold_invoice through the SDK: %+v", made)
		}
		pay(made.Invoice)
		app.next("accepted", &struct {
			Notification *tx `json:"notification"`
		}{&accepted})
		if accepted.State != "accepted" || accepted.PaymentHash != hash || accepted.Amount != 8_000 {
			t.Fatalf("hold_invoice_accepted through the SDK: %+v", accepted)
		}
		app.next("lookup", &looked)
		if looked.State != "accepted" || looked.Preimage != "" {
			t.Fatalf("lookup_invoice of an accepted hold invoice: %+v", looked)
		}
		if b := e.Balance(bobW.ID); b.AvailableMsat != 42_000 || b.ReservedMsat != 8_000 {
			t.Fatalf("bob while held: %+v", b)
		}
		app.next("settled", nil)
		if got := e.Balance(aliceW.ID).AvailableMsat; got != 8_000 {
			t.Fatalf("alice after settle_hold_invoice: %d msat", got)
		}

		var second tx
		app.next("hold", &second)
		pay(second.Invoice)
		app.next("accepted", nil)
		app.next("cancelled", nil)
		if b := e.Balance(bobW.ID); b.AvailableMsat != 42_000 || b.ReservedMsat != 0 || b.SentMsat != 8_000 {
			t.Fatalf("bob after cancel_hold_invoice: %+v", b)
		}
		if got := e.Balance(aliceW.ID).AvailableMsat; got != 8_000 {
			t.Fatalf("alice after cancel_hold_invoice: %d msat", got)
		}
	})
}
