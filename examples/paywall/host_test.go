//go:build !wasip1

package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/hosttest"
)

// TestInTheHost runs the paywall in a real host: /buy returns a real
// invoice of alice's wallet; once bob pays it, /content returns the content.
func TestInTheHost(t *testing.T) {
	e := hosttest.New(t, storetest.SQLite(t), hosttest.Options{})
	alice := e.Wallet("alice", 0)
	bob := e.Wallet("bob", 10_000)
	manifest, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	e.Install(hosttest.Build(t, "."), manifest)
	ctx := context.Background()
	if _, err := e.Registry.Configure(ctx, "paywall", []byte(`{"price_msat":3000,"content":"42"}`)); err != nil {
		t.Fatal(err)
	}
	e.Enable("paywall", alice.ID, "read:transaction", "write:transaction")
	get := func(path string) *host.PluginResponse {
		t.Helper()
		resp, err := e.Registry.Serve(ctx, "paywall", host.PluginRequest{Method: "GET", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := get("/buy")
	var bought struct {
		InvoiceID string `json:"invoice_id"`
		Bolt11    string `json:"bolt11"`
	}
	if err := json.Unmarshal(resp.Body, &bought); err != nil || resp.Status != 201 {
		t.Fatalf("buy: %d %s", resp.Status, resp.Body)
	}
	if r := get("/content/" + bought.InvoiceID); r.Status != 402 {
		t.Fatalf("before paying: %d", r.Status)
	}
	if _, _, err := e.Ledger.Pay(ctx, bob.ID, ledger.PayRequest{Input: bought.Bolt11}); err != nil {
		t.Fatal(err)
	}
	e.Eventually("the content to unlock", func() bool { return get("/content/"+bought.InvoiceID).Status == 200 })
	if r := get("/content/" + bought.InvoiceID); string(r.Body) != "42" {
		t.Fatalf("content %q", r.Body)
	}
	if b := e.Balance(alice.ID); b.AvailableMsat != 3000 {
		t.Fatalf("alice has %d", b.AvailableMsat)
	}
}
