package host_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestWasmPluginActsWithADelegation: a WebAssembly plugin granted
// credential:delegate keeps a budgeted credential its caller gives it,
// pays with it later without the caller (the ledger holding it to its
// budget), and revokes it; without the capability it gets none.
func TestWasmPluginActsWithADelegation(t *testing.T) {
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	hostile := plugintest.Build(t, "testdata/plugins/hostile")
	asks := []string{"read:transaction", "write:transaction", "write:api_key", host.CallerAct, host.CredentialDelegate}
	for _, name := range []string{"allowance", "no-allowance"} {
		e.Install(hostile, wasmManifest(name, asks))
	}
	e.Enable("allowance", "", asks...)
	e.Enable("no-allowance", "", "read:transaction", "write:transaction", "write:api_key", host.CallerAct)
	alice := e.Wallet("alice", 100_000)
	bob := e.Wallet("bob", 0)
	user := []string{"read:transaction", "write:transaction", "write:api_key", "read:wallet"}

	if r := e.RequestAs("no-allowance", "alice", user, "POST", "/delegate", []byte(`{"max_msat":5000}`)); r.Status != 403 ||
		!strings.Contains(string(r.Body), "permission") {
		t.Fatalf("delegating without credential:delegate: %d %s", r.Status, r.Body)
	}
	// Permissions beyond the caller's are refused.
	if r := e.RequestAs("allowance", "alice", []string{"read:transaction", "write:api_key"}, "POST", "/delegate", []byte(`{"max_msat":5000}`)); r.Status != 403 ||
		!strings.Contains(string(r.Body), "permission_exceeded") {
		t.Fatalf("delegating more than the caller holds: %d %s", r.Status, r.Body)
	}
	r := e.RequestAs("allowance", "alice", user, "POST", "/delegate", []byte(`{"max_msat":5000,"renewal":"monthly"}`))
	var d host.Delegation
	if r.Status != 200 || json.Unmarshal(r.Body, &d) != nil || d.WalletID != alice.ID || d.Budget == nil || d.Budget.MaxMsat != 5000 {
		t.Fatalf("delegating: %d %s", r.Status, r.Body)
	}
	spend := func(msat int64) (int, string) {
		t.Helper()
		inv := e.UserInvoice(bob.ID, msat, "allowance").Bolt11
		r := e.Request("allowance", host.PluginRequest{Method: "POST", Path: "/spend",
			Headers: map[string]string{"X-Delegation": d.ID, "X-Invoice": inv}})
		return r.Status, string(r.Body)
	}
	if status, body := spend(3000); status != 200 {
		t.Fatalf("spending within the budget: %d %s", status, body)
	}
	if status, body := spend(3000); status != 422 || !strings.Contains(body, "budget_exceeded") {
		t.Fatalf("spending past the budget: %d %s", status, body)
	}
	if got := e.Balance(alice.ID).AvailableMsat; got != 97_000 {
		t.Fatalf("alice has %d msat", got)
	}
	if r := e.Request("no-allowance", host.PluginRequest{Method: "POST", Path: "/spend",
		Headers: map[string]string{"X-Delegation": d.ID, "X-Invoice": e.UserInvoice(bob.ID, 1000, "x").Bolt11}}); r.Status != 422 {
		t.Fatalf("another plugin spending the delegation: %d %s", r.Status, r.Body)
	}
	r = e.Request("allowance", host.PluginRequest{Method: "POST", Path: "/revoke", Headers: map[string]string{"X-Delegation": d.ID}})
	if r.Status != 200 || !strings.Contains(string(r.Body), `"after":"not_found"`) {
		t.Fatalf("revoking: %d %s", r.Status, r.Body)
	}
	if status, body := spend(1000); status != 422 || !strings.Contains(body, "not_found") {
		t.Fatalf("spending a revoked delegation: %d %s", status, body)
	}
}
