//go:build !wasip1

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

func newHost(t *testing.T, cfg string) *sdktest.Host {
	t.Helper()
	h := sdktest.New()
	h.ConfigJSON = []byte(cfg)
	return h
}

func payment(h *sdktest.Host, id string, msat int64, at time.Time) sdk.Event {
	desc := "coffee"
	data, _ := json.Marshal(sdk.Payment{ID: id, WalletID: h.Wallet.ID, AmountMsat: msat, Status: "Settled", Description: &desc, CreatedAt: at})
	return sdk.NewEvent(sdk.PaymentSettled, h.Wallet.ID, id, at, data)
}

// Each payment is one notification, keyed by its event, ordered with the
// others: the same event delivered again sends nothing more; one under
// min_sat is counted, not notified.
func TestNotifiesEachPaymentOnce(t *testing.T) {
	h := newHost(t, `{"url":"https://ntfy.sh/wallet","token":"tk","min_sat":5}`)
	at := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	if err := h.Deliver(h.SettledInvoice("inv-1", 21_000)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := h.Deliver(payment(h, "pay-1", 7_500, at)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Deliver(payment(h, "pay-2", 1_000, at)); err != nil {
		t.Fatal(err)
	}
	if len(h.Sent) != 2 {
		t.Fatalf("sent %d notifications, want 2: %+v", len(h.Sent), h.Sent)
	}
	got := h.Sent[1]
	if got.Headers["Title"] != "Sent 7.500 sat" || string(got.Body) != "coffee" || got.Headers["Authorization"] != "Bearer tk" ||
		got.Key != "payment.settled/pay-1" || got.Dest != "topic" || got.URL != "https://ntfy.sh/wallet" {
		t.Fatalf("the notification: %+v", got)
	}
	if h.Sent[0].Headers["Title"] != "Received 21 sat" || h.Metrics["notifications"] != 2 {
		t.Fatalf("first %+v, counted %v", h.Sent[0], h.Metrics["notifications"])
	}
}

// The summary timer sends the day before's totals, once per day however
// often it fires, and forgets that day.
func TestSummaryOfTheDayBefore(t *testing.T) {
	h := newHost(t, `{"url":"https://ntfy.sh/wallet"}`)
	yesterday := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i, msat := range []int64{10_000, 2_000} {
		if err := h.Deliver(payment(h, "pay-"+string(rune('a'+i)), msat, yesterday)); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := json.Marshal(sdk.Invoice{ID: "inv-1", AmountReceivedMsat: ptr(int64(50_000)), Status: "Settled"})
	if err := h.Deliver(sdk.NewEvent(sdk.InvoiceSettled, h.Wallet.ID, "inv-1", yesterday, data)); err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	for range 2 {
		if err := h.Fire("summary", due); err != nil {
			t.Fatal(err)
		}
	}
	var summaries []sdk.SendRequest
	for _, s := range h.Sent {
		if strings.HasPrefix(s.Key, "summary/") {
			summaries = append(summaries, s)
		}
	}
	if len(summaries) != 1 || summaries[0].Headers["Title"] != "Summary of 2026-11-27" ||
		string(summaries[0].Body) != "Received 50 sat in 1 payments, sent 12 sat in 2." {
		t.Fatalf("summaries %+v", summaries)
	}
	for k := range h.KV {
		t.Errorf("key %q left after the summary", k)
	}
}

func ptr[T any](v T) *T { return &v }
