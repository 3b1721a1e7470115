package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/logtest"
)

// checkProof fails t unless preimage is lowercase hex whose sha256 is hash.
func checkProof(t *testing.T, what string, preimage *string, hash string) {
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

// The proof of payment over HTTP, with the embedded node: an internal
// payment's 201, its record by id, the list, the Idempotency-Key replay and
// the admin routes carry internal.payment_preimage; the payee's invoice
// shows ln_invoice.payment_preimage once Settled, to its owner and the
// admin, and not while Pending. Nothing is logged with it, even at debug
// level. Not parallel: it listens to the process's default logger.
func TestProofOfPaymentOverHTTP(t *testing.T) {
	var logs logtest.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, func(_ *config.Config, d *api.Deps) { d.Log = slog.Default() })
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 50_000)
		inv := bob.invoice(t, 20_000)
		hash := inv.LnInvoice.PaymentHash
		var pending ledger.Invoice
		r := e.do("GET", "/v1/me/invoices/"+inv.ID, nil, bob.key...).expect(t, 200)
		if strings.Contains(string(r.Body), "payment_preimage") {
			t.Fatalf("a Pending invoice shows a preimage: %s", r.Body)
		}
		r.decodeJSON(t, &pending)

		var p ledger.Payment
		alice.pay(inv.LnInvoice.Bolt11, "Idempotency-Key", "proof").expect(t, 201).decodeJSON(t, &p)
		if p.Status != "Settled" || p.Internal == nil {
			t.Fatalf("payment = %+v", p)
		}
		checkProof(t, "the 201", p.Internal.PaymentPreimage, hash)
		var replay ledger.Payment
		alice.pay(inv.LnInvoice.Bolt11, "Idempotency-Key", "proof").expect(t, 200).decodeJSON(t, &replay)
		checkProof(t, "the replay", replay.Internal.PaymentPreimage, hash)

		admin := bearer(e.adminToken())
		for _, who := range []struct {
			name, mine, all string
			key             []string
		}{
			{"owner", "/v1/me/payments", "/v1/me/payments?ledger=Internal", alice.key},
			{"admin", "/v1/payments", "/v1/payments?wallet_id=" + alice.id, admin},
		} {
			var got ledger.Payment
			e.do("GET", who.mine+"/"+p.ID, nil, who.key...).expect(t, 200).decodeJSON(t, &got)
			checkProof(t, who.name+"'s payment by id", got.Internal.PaymentPreimage, hash)
			var list []ledger.Payment
			e.do("GET", who.all, nil, who.key...).expect(t, 200).decodeJSON(t, &list)
			if len(list) != 1 {
				t.Fatalf("%s's list = %+v", who.name, list)
			}
			checkProof(t, who.name+"'s payment list", list[0].Internal.PaymentPreimage, hash)
		}
		for _, who := range []struct {
			name, path string
			key        []string
		}{
			{"owner", "/v1/me/invoices/", bob.key},
			{"admin", "/v1/invoices/", admin},
		} {
			var got ledger.Invoice
			e.do("GET", who.path+inv.ID, nil, who.key...).expect(t, 200).decodeJSON(t, &got)
			if got.Status != "Settled" {
				t.Fatalf("invoice = %+v", got)
			}
			checkProof(t, who.name+"'s settled invoice", got.LnInvoice.PaymentPreimage, hash)
		}
		if strings.Contains(logs.String(), *p.Internal.PaymentPreimage) {
			t.Fatalf("the preimage was logged:\n%s", logs.String())
		}
		e.checkLedger(t)
	})
}
