package nwc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// The tests do not run in parallel: plugintest.New, run by two tests at
// once, races inside wazero.

// TestConnectionAnswersEveryMethod connects an app over the real relay
// and calls every method as an app does, in NIP-44 and in NIP-04.
func TestConnectionAnswersEveryMethod(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 1_000_000, auth.AllScopes)
		bob, bobW := k.user("bob", 0, auth.AllScopes)
		c, a := k.connect(alice, map[string]any{"name": "Damus"})
		if c.Pubkey != a.Pub() || !strings.Contains(c.URI, "relay=") || len(c.Methods) != 14 {
			t.Fatalf("connection %+v", c)
		}

		var info struct {
			Methods       []string `json:"methods"`
			Notifications []string `json:"notifications"`
			Network       string   `json:"network"`
		}
		a.Call("get_info", map[string]any{}).Decode(t, &info)
		if len(info.Methods) != 13 || len(info.Notifications) != 3 {
			t.Fatalf("get_info %+v", info)
		}
		var bal struct{ Balance int64 }
		a.Call("get_balance", nil, nostrtest.NIP04).Decode(t, &bal)
		if bal.Balance != 1_000_000 {
			t.Fatalf("get_balance over NIP-04: %d", bal.Balance)
		}

		// make_invoice, then lookup_invoice by its hash and by its text.
		var made struct {
			Type, Invoice string
			PaymentHash   string `json:"payment_hash"`
			Amount        int64
		}
		a.Call("make_invoice", map[string]any{"amount": 21_000, "description": "coffee"}).Decode(t, &made)
		if made.Amount != 21_000 || !strings.HasPrefix(made.Invoice, "ln") {
			t.Fatalf("make_invoice %+v", made)
		}
		var found struct{ Invoice, State string }
		a.Call("lookup_invoice", map[string]any{"invoice": made.Invoice}).Decode(t, &found)
		if found.Invoice != made.Invoice || found.State != "pending" {
			t.Fatalf("lookup_invoice %+v", found)
		}
		if r := a.Call("lookup_invoice", map[string]any{"payment_hash": strings.Repeat("0", 64)}); r.Code() != "NOT_FOUND" {
			t.Fatalf("lookup of an unknown hash: %+v", r)
		}

		// pay_invoice pays inside the instance and answers the preimage.
		bolt11, hash := k.invoice(bob, 5_000)
		var paid struct {
			Preimage string
			FeesPaid int64 `json:"fees_paid"`
		}
		a.Call("pay_invoice", map[string]any{"invoice": bolt11}).Decode(t, &paid)
		pre, _ := hex.DecodeString(paid.Preimage)
		if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != hash {
			t.Fatalf("preimage %q does not hash to %s", paid.Preimage, hash)
		}
		if got := e.Balance(bobW.ID).AvailableMsat; got != 5_000 {
			t.Fatalf("bob has %d msat", got)
		}

		// multi_pay_invoice: one response per invoice, tagged d with its id.
		b1, _ := k.invoice(bob, 1_000)
		b2, _ := k.invoice(bob, 2_000)
		req := a.Send("multi_pay_invoice", map[string]any{"invoices": []map[string]any{{"id": "one", "invoice": b1}, {"id": "two", "invoice": b2}}})
		for _, r := range a.Responses(req, 2) {
			if r.Code() != "" {
				t.Fatalf("multi_pay_invoice: %+v", r)
			}
		}
		ds := 0
		for _, ev := range a.Events() {
			if ev.Tags.FindWithValue("e", req.ID) != nil && (ev.Tags.FindWithValue("d", "one") != nil || ev.Tags.FindWithValue("d", "two") != nil) {
				ds++
			}
		}
		if ds != 2 {
			t.Fatalf("%d responses tagged d with their invoice's id", ds)
		}

		var list struct {
			Transactions []struct{ Type, State string } `json:"transactions"`
		}
		a.Call("list_transactions", map[string]any{"type": "outgoing"}).Decode(t, &list)
		if len(list.Transactions) != 3 || list.Transactions[0].Type != "outgoing" {
			t.Fatalf("list_transactions %+v", list)
		}
		a.Call("list_transactions", map[string]any{"unpaid": true, "limit": 10}).Decode(t, &list)
		if len(list.Transactions) != 5 { // the three payments, the invoice made above and the funding
			t.Fatalf("list_transactions with unpaid: %+v", list)
		}
		var budget map[string]any
		a.Call("get_budget", nil).Decode(t, &budget)
		if len(budget) != 0 {
			t.Fatalf("get_budget of an unbudgeted connection: %v", budget)
		}
		for _, m := range []string{"make_offer", "sign_message"} {
			if r := a.Call(m, map[string]any{}); r.Code() != "NOT_IMPLEMENTED" || r.ResultType != m {
				t.Fatalf("%s: %+v", m, r)
			}
		}
		// A keysend reaches the ledger, which the embedded node cannot
		// send (lnd can: core's keysend test); bad params are OTHER.
		peer := "03" + strings.Repeat("ab", 32)
		if r := a.Call("pay_keysend", map[string]any{"pubkey": peer, "amount": 1000,
			"tlv_records": []map[string]any{{"type": 7629169, "value": "7b7d"}}}); r.Code() != "PAYMENT_FAILED" {
			t.Fatalf("pay_keysend on the embedded node: %+v", r)
		}
		if r := a.Call("pay_keysend", map[string]any{"pubkey": peer}); r.Code() != "OTHER" {
			t.Fatalf("pay_keysend without an amount: %+v", r)
		}
	})
}

var _ = nwc.Connection{}
var _ = http.StatusOK
var _ = gonostr.Now
