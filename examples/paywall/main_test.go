//go:build !wasip1

package main

import (
	"encoding/json"
	"testing"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

func TestSellsContentOncePaid(t *testing.T) {
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"price_msat":2000,"content":"the secret"}`)
	resp, err := h.Serve(sdk.Request{Method: "GET", Path: "/buy"})
	if err != nil || resp.Status != 201 {
		t.Fatalf("buy: %+v %v", resp, err)
	}
	var bought struct {
		InvoiceID string `json:"invoice_id"`
		Bolt11    string `json:"bolt11"`
	}
	json.Unmarshal(resp.Body, &bought)
	if r, _ := h.Serve(sdk.Request{Method: "GET", Path: "/content/" + bought.InvoiceID}); r.Status != 402 {
		t.Fatalf("unpaid: %d", r.Status)
	}
	if r, _ := h.Serve(sdk.Request{Method: "GET", Path: "/content/other"}); r.Status != 404 {
		t.Fatalf("unknown: %d", r.Status)
	}
	// Someone else's invoice settling unlocks nothing.
	if err := h.Deliver(h.SettledInvoice("other", 2000)); err != nil {
		t.Fatal(err)
	}
	if err := h.Deliver(h.SettledInvoice(bought.InvoiceID, 2000)); err != nil {
		t.Fatal(err)
	}
	r, _ := h.Serve(sdk.Request{Method: "GET", Path: "/content/" + bought.InvoiceID})
	if r.Status != 200 || string(r.Body) != "the secret" {
		t.Fatalf("paid: %d %s", r.Status, r.Body)
	}
}
