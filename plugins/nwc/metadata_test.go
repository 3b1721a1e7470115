package nwc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestMetadataRoundTrip: the metadata an app sends with make_invoice and
// pay_invoice comes back from lookup_invoice, list_transactions and the
// payment's notifications, to each wallet its own; metadata that is no
// object, or longer than 4,096 characters, is refused with OTHER.
func TestMetadataRoundTrip(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "alice's app"})
		_, b := k.connect(bob, map[string]any{"name": "bob's app"})

		var made struct {
			Invoice     string
			PaymentHash string `json:"payment_hash"`
			Metadata    map[string]any
		}
		b.Call("make_invoice", map[string]any{"amount": 5_000, "metadata": map[string]any{"order": "A-17", "items": []int{1, 2}}}).Decode(t, &made)
		if made.Metadata["order"] != "A-17" {
			t.Fatalf("make_invoice answered metadata %v", made.Metadata)
		}
		if r := a.Call("pay_invoice", map[string]any{"invoice": made.Invoice, "metadata": map[string]any{"comment": "for A-17"}}); r.Code() != "" {
			t.Fatalf("pay_invoice: %+v", r)
		}

		meta := func(raw json.RawMessage) map[string]any {
			var tx struct{ Metadata map[string]any }
			if err := json.Unmarshal(raw, &tx); err != nil {
				t.Fatal(err)
			}
			return tx.Metadata
		}
		var found json.RawMessage
		b.Call("lookup_invoice", map[string]any{"payment_hash": made.PaymentHash}).Decode(t, &found)
		if meta(found)["order"] != "A-17" {
			t.Fatalf("bob's lookup_invoice: %s", found)
		}
		a.Call("lookup_invoice", map[string]any{"payment_hash": made.PaymentHash}).Decode(t, &found)
		if m := meta(found); m["comment"] != "for A-17" || m["order"] != nil {
			t.Fatalf("alice's lookup_invoice: %s", found)
		}
		var list struct{ Transactions []json.RawMessage }
		a.Call("list_transactions", map[string]any{"type": "outgoing"}).Decode(t, &list)
		if len(list.Transactions) != 1 || meta(list.Transactions[0])["comment"] != "for A-17" {
			t.Fatalf("alice's list_transactions: %s", list.Transactions)
		}
		e.Eventually("payment_received with its metadata", func() bool {
			for _, raw := range b.Notifications(23197) {
				if strings.Contains(raw, made.PaymentHash) && strings.Contains(raw, `"order":"A-17"`) {
					return true
				}
			}
			return false
		})
		e.Eventually("payment_sent with its metadata", func() bool {
			for _, raw := range a.Notifications(23197) {
				if strings.Contains(raw, made.PaymentHash) && strings.Contains(raw, `"comment":"for A-17"`) {
					return true
				}
			}
			return false
		})

		for _, m := range []any{"a string", []int{1}, map[string]any{"long": strings.Repeat("x", 4_090)}} {
			if r := b.Call("make_invoice", map[string]any{"amount": 1_000, "metadata": m}); r.Code() != "OTHER" {
				t.Fatalf("make_invoice with metadata %.40v: %+v", m, r)
			}
		}
	})
}
