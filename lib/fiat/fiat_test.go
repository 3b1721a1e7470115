package fiat_test

import (
	"math/big"
	"testing"

	"github.com/hearthwallet/hearth/lib/fiat"
)

func TestRateOfPrice(t *testing.T) {
	for _, c := range []struct{ price, rate string }{
		{"100000", "1000"},
		{"95000", "1052.6315789474"}, // 1052.63157894736842… rounded at 10 places
		{"97123.40000", "1029.6179911329"},
		{"2500000000", "0.04"},
		{"3", "33333333.3333333333"},
	} {
		p, err := fiat.ParseDecimal(c.price)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fiat.RateOfPrice(p)
		if err != nil || got != c.rate {
			t.Errorf("RateOfPrice(%s) = %q, %v; want %q", c.price, got, err, c.rate)
		}
	}
	if _, err := fiat.RateOfPrice(new(big.Rat)); err == nil {
		t.Error("a zero price gave a rate")
	}
}

func TestMsat(t *testing.T) {
	for _, c := range []struct {
		amount, rate string
		msat         int64
	}{
		{"12.50", "1000", 12_500_000},
		{"5.50", "1052.6315789474", 5_789_474}, // 5,789,473.684… → up
		{"0.01", "1052.6315789474", 10_526},    // 10,526.315789474 → down
		{"1", "0.0005", 1},                     // half a msat rounds away from zero
		{"1", "0.0004", 0},                     // under half: zero (the ledger refuses it)
		{"999999999999.99999999", "1", 1_000_000_000_000_000},
	} {
		got, err := fiat.Msat(c.amount, c.rate)
		if err != nil || got != c.msat {
			t.Errorf("Msat(%s, %s) = %d, %v; want %d", c.amount, c.rate, got, err, c.msat)
		}
	}
	for _, bad := range []string{"", "0", "0.00", "-1", "1e3", "1,5", " 1", "1.123456789", "1234567890123", ".5", "5.", "NaN", "0x10"} {
		if _, err := fiat.Msat(bad, "1000"); err == nil {
			t.Errorf("Msat(%q) converted a bad amount", bad)
		}
	}
	if _, err := fiat.Msat("1", "0"); err == nil {
		t.Error("a zero rate converted")
	}
}

func TestAmountAndPlaces(t *testing.T) {
	for _, c := range []struct {
		msat     int64
		rate     string
		currency string
		want     string
	}{
		{12_500_000, "1000", "USD", "12.50"},
		{5_789_474, "1052.6315789474", "EUR", "5.50"},
		{1_000_000, "0.6666666667", "JPY", "1500"},
		{1_000_000, "3", "KWD", "333.333"},
		{0, "1000", "USD", "0.00"},
		{4, "1000", "USD", "0.00"},
		{5_000, "1000", "USD", "0.01"},
	} {
		got, err := fiat.Amount(c.msat, c.rate, c.currency)
		if err != nil || got != c.want {
			t.Errorf("Amount(%d, %s, %s) = %q, %v; want %q", c.msat, c.rate, c.currency, got, err, c.want)
		}
	}
}

func TestCurrency(t *testing.T) {
	if c, ok := fiat.Currency(" eur "); !ok || c != "EUR" {
		t.Errorf("Currency(eur) = %q, %v", c, ok)
	}
	for _, bad := range []string{"", "EU", "EURO", "E1R", "€"} {
		if _, ok := fiat.Currency(bad); ok {
			t.Errorf("Currency(%q) took it", bad)
		}
	}
}
