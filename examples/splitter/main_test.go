//go:build !wasip1

package main

import (
	"testing"

	"github.com/hearthwallet/hearth/sdk/sdktest"
)

func TestShare(t *testing.T) {
	for _, tc := range []struct{ received, percent, want int64 }{
		{100_000, 10, 10_000}, {100_000, 0, 0}, {100_000, 100, 100_000}, {100_000, 150, 100_000},
		{12_345, 10, 1000}, {999, 50, 0}, {-5, 10, 0},
	} {
		if got := Share(tc.received, tc.percent); got != tc.want {
			t.Errorf("Share(%d, %d) = %d, want %d", tc.received, tc.percent, got, tc.want)
		}
	}
}

func TestForwardsTheShare(t *testing.T) {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 100_000
	h.ConfigJSON = []byte(`{"address":"bob@example.com","percent":25,"min_msat":1000}`)
	var asked int64
	h.Resolve = func(address string, amount int64) (string, error) {
		asked = amount
		return "lnbcrt-bob", nil
	}
	if err := h.Deliver(h.SettledInvoice("inv-1", 40_000)); err != nil {
		t.Fatal(err)
	}
	if asked != 10_000 || len(h.Payments) != 1 || h.Wallet.Balance.AvailableMsat != 90_000 {
		t.Fatalf("asked %d, payments %+v, balance %d", asked, h.Payments, h.Wallet.Balance.AvailableMsat)
	}
	// Too small a share is not forwarded.
	if err := h.Deliver(h.SettledInvoice("inv-2", 2_000)); err != nil || len(h.Payments) != 1 {
		t.Fatalf("small share: %v %d", err, len(h.Payments))
	}
}
