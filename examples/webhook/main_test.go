//go:build !wasip1

package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

// TestRetriesThenDelivers runs the plugin natively against the SDK's test
// double: two failures, then success on the third attempt.
func TestRetriesThenDelivers(t *testing.T) {
	backoff = []time.Duration{0, 0, 0}
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"url":"https://hooks.example.com/x","secret":"s3cret","attempts":3}`)
	var got []sdk.OutboundRequest
	h.HTTP = func(r sdk.OutboundRequest) (*sdk.OutboundResponse, error) {
		got = append(got, r)
		if len(got) < 3 {
			return &sdk.OutboundResponse{Status: 500}, nil
		}
		return &sdk.OutboundResponse{Status: 204}, nil
	}
	if err := h.Deliver(h.SettledInvoice("inv-1", 5000)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d attempts", len(got))
	}
	last := got[2]
	if last.Headers["X-Hearth-Signature"] != Sign("s3cret", last.Body) {
		t.Fatal("bad signature")
	}
	var d delivery
	if err := json.Unmarshal(last.Body, &d); err != nil || d.ID != "inv-1" || d.Event != sdk.InvoiceSettled {
		t.Fatalf("body %s: %v", last.Body, err)
	}
}

func TestGivesUpAfterTheLastAttempt(t *testing.T) {
	backoff = []time.Duration{0, 0, 0}
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"url":"https://hooks.example.com/x","secret":"s","attempts":2}`)
	calls := 0
	h.HTTP = func(sdk.OutboundRequest) (*sdk.OutboundResponse, error) {
		calls++
		return &sdk.OutboundResponse{Status: 503}, nil
	}
	if err := h.Deliver(h.SettledInvoice("inv-2", 1000)); err == nil || calls != 2 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
