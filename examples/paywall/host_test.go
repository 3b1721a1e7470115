//go:build !wasip1

package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestInTheHost runs the paywall in a real host: /buy returns a real
// invoice of alice's wallet; once bob pays it, /content returns the content.
func TestInTheHost(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{})
	alice := e.Wallet("alice", 0)
	bob := e.Wallet("bob", 10_000)
	manifest, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	e.Install(plugintest.Build(t, "."), manifest)
	e.Configure("paywall", `{"price_msat":3000,"content":"42"}`)
	e.Enable("paywall", alice.ID, "read:transaction", "write:transaction")
	resp := e.Get("paywall", "/buy")
	var bought struct {
		InvoiceID string `json:"invoice_id"`
		Bolt11    string `json:"bolt11"`
	}
	if err := json.Unmarshal(resp.Body, &bought); err != nil || resp.Status != 201 {
		t.Fatalf("buy: %d %s", resp.Status, resp.Body)
	}
	if r := e.Get("paywall", "/content/"+bought.InvoiceID); r.Status != 402 {
		t.Fatalf("before paying: %d", r.Status)
	}
	e.Pay(bob.ID, bought.Bolt11)
	e.Eventually("the content to unlock", func() bool { return e.Get("paywall", "/content/"+bought.InvoiceID).Status == 200 })
	if r := e.Get("paywall", "/content/"+bought.InvoiceID); string(r.Body) != "42" {
		t.Fatalf("content %q", r.Body)
	}
	if b := e.Balance(alice.ID); b.AvailableMsat != 3000 {
		t.Fatalf("alice has %d", b.AvailableMsat)
	}
}
