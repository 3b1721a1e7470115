//go:build !wasip1

package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestInTheHost runs the escrow in a real host over a real ledger, on both
// databases: bob pays an order of alice's and his money is held; bob
// confirms and alice is paid. Bob pays a second order and never confirms:
// the timer cancels it and bob has his money back.
func TestInTheHost(t *testing.T) {
	wasm := plugintest.Build(t, ".")
	manifest, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		alice := e.Wallet("alice", 0)
		bob := e.Wallet("bob", 20_000)
		e.Install(wasm, manifest)
		e.Configure("escrow", `{"price_msat":6000,"timeout_seconds":0}`)
		e.Enable("escrow", alice.ID, "read:transaction", "write:transaction", "invoice:hold")
		order := func() placed {
			t.Helper()
			r := e.Post("escrow", "/orders", nil)
			var p placed
			if err := json.Unmarshal(r.Body, &p); err != nil || r.Status != 201 {
				t.Fatalf("placing an order: %d %s", r.Status, r.Body)
			}
			return p
		}
		state := func(id string) string {
			var o struct{ State string }
			json.Unmarshal(e.Get("escrow", "/orders/"+id).Body, &o) //nolint:errcheck // an empty state fails the test
			return o.State
		}

		first := order()
		e.Pay(bob.ID, first.Bolt11)
		e.Eventually("the order to be held", func() bool { return state(first.OrderID) == "held" })
		if b := e.Balance(bob.ID); b.ReservedMsat != 6_000 || b.AvailableMsat != 14_000 {
			t.Fatalf("bob while held: %+v", b)
		}
		body, _ := json.Marshal(map[string]string{"token": first.Token})
		if r := e.Post("escrow", "/orders/"+first.OrderID+"/confirm", body); r.Status != 200 {
			t.Fatalf("confirming: %d %s", r.Status, r.Body)
		}
		if b := e.Balance(alice.ID); b.AvailableMsat != 6_000 || b.ReceivedMsat != 6_000 {
			t.Fatalf("alice after the confirmation: %+v", b)
		}

		second := order()
		e.Pay(bob.ID, second.Bolt11)
		e.Eventually("the second order to be held", func() bool { return state(second.OrderID) == "held" })
		e.DueNow("escrow", "expire")
		e.Eventually("the second order to be refunded", func() bool { return state(second.OrderID) == "refunded" })
		if b := e.Balance(bob.ID); b.AvailableMsat != 14_000 || b.ReservedMsat != 0 || b.SentMsat != 6_000 {
			t.Fatalf("bob after the refund: %+v", b)
		}
		e.CheckLedger()
	})
}
