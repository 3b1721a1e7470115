//go:build !wasip1

package main

import (
	"encoding/json"
	"testing"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

// The sale's arithmetic against the SDK's double: the tip is added in
// exact decimals and rounded half up to the currency's decimals, and the
// invoice is asked for in the currency, at the host's rate.
func TestSalesAddTheTipInTheCurrencysDecimals(t *testing.T) {
	h := sdktest.New()
	h.Rates["USD"], h.Rates["JPY"] = "1000", "7.5"
	for user, shop := range map[string]string{
		"ann": `{"title":"Ann's","currency":"USD","tips":[15]}`,
		"ken": `{"title":"Ken's","currency":"JPY","tips":[10]}`,
	} {
		r, err := h.Serve(sdk.Request{Method: "PUT", Path: "/me", Body: []byte(shop), Caller: &sdk.Caller{UserID: user, WalletID: "w-" + user}})
		if err != nil || r.Status != 200 {
			t.Fatalf("opening %s's shop: %+v %v", user, r, err)
		}
	}
	for _, c := range []struct {
		user, body           string
		subtotal, tip, total string
		msat                 int64
	}{
		{"ann", `{"amount":"3.33","tip_percent":15}`, "3.33", "0.50", "3.83", 3_830_000}, // 3.8295 → 3.83
		{"ann", `{"amount":"10.00"}`, "10.00", "0.00", "10.00", 10_000_000},
		{"ken", `{"amount":"995","tip_percent":10}`, "995", "100", "1095", 8_212_500}, // 1094.5 → 1095 yen
	} {
		r, err := h.Serve(sdk.Request{Method: "POST", Path: "/s/" + c.user + "/sale", Body: []byte(c.body)})
		if err != nil || r.Status != 201 {
			t.Fatalf("%s %s: %+v %v", c.user, c.body, r, err)
		}
		var sale struct {
			Subtotal, Tip, Total string
			AmountMsat           int64 `json:"amount_msat"`
		}
		if err := json.Unmarshal(r.Body, &sale); err != nil {
			t.Fatal(err)
		}
		if sale.Subtotal != c.subtotal || sale.Tip != c.tip || sale.Total != c.total || sale.AmountMsat != c.msat {
			t.Errorf("%s %s: %s, want %s + %s = %s (%d msat)", c.user, c.body, r.Body, c.subtotal, c.tip, c.total, c.msat)
		}
	}
	if got := h.Received[0].WalletID; got != "w-ann" {
		t.Fatalf("ann's sale went into %s", got)
	}
	r, _ := h.Serve(sdk.Request{Method: "POST", Path: "/s/ken/sale", Body: []byte(`{"amount":"9.5"}`)})
	if r.Status != 400 {
		t.Fatalf("half a yen: %d %s", r.Status, r.Body)
	}
}
