//go:build !wasip1

package sdktest_test

import (
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
