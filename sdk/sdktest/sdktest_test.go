//go:build !wasip1

package sdktest_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

func TestDoubleAnswersEveryHelper(t *testing.T) {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 5000
	h.ConfigJSON = []byte(`{"greeting":"hi"}`)
	if b, err := sdk.Wallet().Balance(); err != nil || b.AvailableMsat != 5000 {
		t.Fatalf("balance %+v %v", b, err)
	}
	var cfg struct{ Greeting string }
	if err := sdk.Config(&cfg); err != nil || cfg.Greeting != "hi" {
		t.Fatalf("config %+v %v", cfg, err)
	}
	inv, err := sdk.CreateInvoice(sdk.NewInvoice{AmountMsat: 1000})
	if err != nil || inv.Bolt11() == "" {
		t.Fatalf("invoice %+v %v", inv, err)
	}
	if _, err := sdk.PayLightningAddress("bob@example.com", 2000, "", "k"); err != nil {
		t.Fatal(err)
	}
	if b, _ := sdk.Wallet().Balance(); b.AvailableMsat != 3000 {
		t.Fatalf("after paying: %d", b.AvailableMsat)
	}
	if err := sdk.KV.Set("a", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := sdk.KV.Get("a"); err != nil || !ok || string(v) != "1" {
		t.Fatalf("kv %q %v %v", v, ok, err)
	}
	h.Deny["pay"] = true
	if _, err := sdk.Pay(sdk.PayRequest{Input: "x"}); !sdk.IsPermissionDenied(err) {
		t.Fatalf("denied pay: %v", err)
	}
	sdk.Log.Info("hello")
	if len(h.Logs) != 1 || h.Logs[0] != "info: hello" {
		t.Fatalf("logs %v", h.Logs)
	}
}

// TestFireRunsTheTimer: Fire runs the handler OnTimer registered for the
// name, with the due time; a timer without a handler is an error.
func TestFireRunsTheTimer(t *testing.T) {
	h := sdktest.New()
	var got sdk.Timer
	sdk.OnTimer("summary", func(tm sdk.Timer) error { got = tm; return nil })
	due := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	if err := h.Fire("summary", due); err != nil {
		t.Fatal(err)
	}
	if got.Name != "summary" || !got.DueAt.Equal(due) {
		t.Fatalf("the handler got %+v", got)
	}
	if err := h.Fire("other", due); err == nil {
		t.Fatal("a timer without a handler ran")
	}
}

// TestKeysPagesThroughTheStore: Keys reads every key of a prefix, past one
// page, in order.
func TestKeysPagesThroughTheStore(t *testing.T) {
	h := sdktest.New()
	for i := range 2500 {
		h.KV[fmt.Sprintf("k/%04d", i)] = nil
	}
	h.KV["other"] = nil
	var got []string
	if err := sdk.KV.Keys("k/", func(k string) bool { got = append(got, k); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2500 || got[0] != "k/0000" || got[2499] != "k/2499" || h.Calls["kv_list"] != 4 {
		t.Fatalf("%d keys in %d calls", len(got), h.Calls["kv_list"])
	}
}

// TestDoubleAnswersEveryHostFunction: the double answers each host
// function the SDK imports (none is "no host function"), so that every
// plugin can be unit-tested; the host's side of the same list is checked
// against the SDK's imports in host/wasm (TestSDKImportsEveryHostFunction).
func TestDoubleAnswersEveryHostFunction(t *testing.T) {
	h := sdktest.New()
	for _, op := range sdk.HostFunctions() {
		_, err := h.Call(op, []byte(`{}`))
		var e *sdk.Error
		if errors.As(err, &e) && e.Code == "abi" {
			t.Errorf("%s: %v", op, err)
		}
	}
}

// TestDoubleKeepsDelegations: a delegation acts within its permissions
// and budget, and not once revoked; receive makes an invoice of another
// wallet that received_invoice finds; nostr_sign gives the event its
// NIP-01 id.
func TestDoubleKeepsDelegations(t *testing.T) {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 10_000
	d, err := sdk.Delegate(sdk.NewDelegation{Name: "sub", Permissions: []string{"write:transaction"},
		Budget: &sdk.BudgetSpec{MaxMsat: 3000, Renewal: "never"}})
	if err != nil {
		t.Fatal(err)
	}
	as := sdk.As(d.ID)
	if _, err := as.Pay(sdk.PayRequest{Input: "x", AmountMsat: 2000}); err != nil {
		t.Fatal(err)
	}
	var e *sdk.Error
	if _, err := as.Pay(sdk.PayRequest{Input: "x", AmountMsat: 2000}); !errors.As(err, &e) || e.Code != "budget_exceeded" {
		t.Fatalf("past the budget: %v", err)
	}
	if _, err := as.Wallet(); !sdk.IsPermissionDenied(err) {
		t.Fatalf("read:wallet not delegated: %v", err)
	}
	if got, err := sdk.GetDelegation(d.ID); err != nil || got.Budget.UsedMsat != 2000 || h.Wallet.Balance.AvailableMsat != 8000 {
		t.Fatalf("after paying: %+v %v, balance %d", got, err, h.Wallet.Balance.AvailableMsat)
	}
	if err := sdk.RevokeDelegation(d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := as.Pay(sdk.PayRequest{Input: "x", AmountMsat: 1}); !errors.As(err, &e) || e.Code != "not_found" {
		t.Fatalf("a revoked delegation: %v", err)
	}
	inv, err := sdk.Receive("wallet-9", sdk.NewInvoice{AmountMsat: 500})
	if err != nil || inv.WalletID != "wallet-9" || len(h.Invoices) != 0 {
		t.Fatalf("receive: %+v %v (%d of the plugin's own)", inv, err, len(h.Invoices))
	}
	if got, err := sdk.ReceivedInvoice("wallet-9", inv.ID); err != nil || got.ID != inv.ID {
		t.Fatalf("received_invoice: %+v %v", got, err)
	}
	ev, err := sdk.SignNostr(sdk.NostrEvent{Kind: 1, CreatedAt: 1700000000, Content: "hi"})
	if err != nil || ev.PubKey != sdktest.TestPubKey || len(ev.ID) != 64 {
		t.Fatalf("nostr_sign: %+v %v", ev, err)
	}
}

// The double's rates answer sdk.Rate, and an invoice asked for in a
// currency is converted at them to the nearest msat, as the host does.
func TestDoubleConvertsAtItsRates(t *testing.T) {
	h := sdktest.New()
	h.Rates["USD"] = "1052.6315789474"
	r, err := sdk.Rate("usd")
	if err != nil || r.Rate != "1052.6315789474" || r.Currency != "USD" {
		t.Fatalf("rate %+v %v", r, err)
	}
	var e *sdk.Error
	if _, err := sdk.Rate("EUR"); !errors.As(err, &e) || e.Code != "unknown_currency" {
		t.Fatalf("EUR: %v, want unknown_currency", err)
	}
	inv, err := sdk.CreateInvoice(sdk.NewInvoice{Amount: "5.50", Currency: "USD"})
	if err != nil || *inv.AmountMsat != 5_789_474 || inv.Fiat == nil || inv.Fiat.Amount != "5.50" || inv.Fiat.Rate != r.Rate {
		t.Fatalf("invoice %+v %+v %v, want 5,789,474 msat (5,789,473.684…)", inv, inv.Fiat, err)
	}
}
