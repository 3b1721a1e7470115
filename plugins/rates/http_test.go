package rates_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/rates"
)

// GET /v1/rates and /v1/rates/{currency}, public by default: the rates of
// the currencies offered, 422 for one not offered, 400 for no currency
// code, 503 when no source is fresh; behind a credential when the
// operator says so.
func TestRatesOverHTTP(t *testing.T) {
	k := newKit(t, storetest.SQLite(t), func(s *rates.Settings) { s.Currencies = "USD,EUR,JPY" })
	k.prices.setAll("USD", "100000")
	k.prices.setAll("EUR", "80000")
	var all []ledger.Rate
	k.do("", "GET", "/v1/rates", "").expect(t, 200, "").json(t, &all)
	if len(all) != 2 || all[0].Currency != "USD" || all[0].Rate != "1000" || all[1].Currency != "EUR" || all[1].Rate != "1250" {
		t.Fatalf("GET /v1/rates = %+v, want USD and EUR (JPY has no price)", all)
	}
	var one ledger.Rate
	k.do("", "GET", "/v1/rates/eur", "").expect(t, 200, "").json(t, &one)
	if one.Currency != "EUR" || one.Rate != "1250" || len(one.Sources) != 5 || one.At.IsZero() {
		t.Fatalf("GET /v1/rates/eur = %+v", one)
	}
	k.do("", "GET", "/v1/rates/CHF", "").expect(t, 422, "unknown_currency")
	k.do("", "GET", "/v1/rates/euro", "").expect(t, 400, "invalid_request")
	k.do("", "GET", "/v1/rates/JPY", "").expect(t, 503, "rates_unavailable")

	private := newKit(t, storetest.SQLite(t), func(s *rates.Settings) { s.Public = false; s.Fixed = "USD:50000" })
	private.do("", "GET", "/v1/rates/USD", "").expect(t, 401, "")
	tok, _ := private.user("alice", 0)
	private.do(tok, "GET", "/v1/rates/USD", "").expect(t, 200, "").json(t, &one)
	if one.Rate != "2000" || !one.Fixed || !slices.Equal(one.Sources, []string{"fixed"}) {
		t.Fatalf("fixed USD = %+v", one)
	}
}

// invoiceRecord is what the tests read of an invoice record.
type invoiceRecord struct {
	ID         string `json:"id"`
	AmountMsat int64  `json:"amount_msat"`
	Status     string `json:"status"`
	Fiat       *struct {
		Amount   string    `json:"amount"`
		Currency string    `json:"currency"`
		Rate     string    `json:"rate"`
		At       time.Time `json:"at"`
		Fixed    bool      `json:"fixed"`
	} `json:"fiat"`
	LnInvoice struct {
		Bolt11 string `json:"bolt11"`
	} `json:"ln_invoice"`
}

// An invoice asked for in a currency is converted once, at the rate of
// that moment: its msat are the amount times the rate, to the nearest
// msat, and the record keeps the amount, currency, rate and time as
// decimals, exactly as they were, on both databases. The balance reads in
// a currency too. Bad requests get their error.
func TestFiatInvoiceAndBalanceOverHTTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		k.prices.setAll("EUR", "87123.45")
		tok, walletID := k.user("merchant", 0)
		var inv invoiceRecord
		k.do(tok, "POST", "/v1/me/invoices", `{"amount":"12.50","currency":"eur","description":"two coffees"}`).
			expect(t, 201, "").json(t, &inv)
		f := inv.Fiat
		if f == nil || f.Amount != "12.50" || f.Currency != "EUR" || f.Rate != "1147.7966035551" || f.At.IsZero() || f.Fixed {
			t.Fatalf("fiat = %+v, want 12.50 EUR at 10^8/87123.45 sat per euro", f)
		}
		// 12.50 × 1147.7966035551 × 1000 = 14,347,457.544… msat
		want := new(big.Rat).Mul(big.NewRat(1250, 100), mustRat(t, f.Rate))
		want.Mul(want, big.NewRat(1000, 1))
		if inv.AmountMsat != 14_347_458 || want.FloatString(0) != "14347458" {
			t.Fatalf("amount_msat = %d, want 12.50 × %s × 1000 = %s to the msat", inv.AmountMsat, f.Rate, want.FloatString(3))
		}
		var again invoiceRecord
		k.do(tok, "GET", "/v1/me/invoices/"+inv.ID, "").expect(t, 200, "").json(t, &again)
		if again.Fiat == nil || *again.Fiat != *f || again.AmountMsat != inv.AmountMsat {
			t.Fatalf("read back: %+v %d, want %+v %d", again.Fiat, again.AmountMsat, f, inv.AmountMsat)
		}
		var row struct {
			Amount, Currency, Rate string
		}
		err := db.R.NewRaw("SELECT fiat_amount, fiat_currency, fiat_rate FROM invoices WHERE id = ?", inv.ID).
			Scan(context.Background(), &row.Amount, &row.Currency, &row.Rate)
		if err != nil || row.Amount != "12.50" || row.Currency != "EUR" || row.Rate != "1147.7966035551" {
			t.Fatalf("stored %+v (%v), want the decimals as they were", row, err)
		}

		// Paid from another wallet, the balance reads in euros at today's
		// rate.
		payer, _ := k.user("payer", 20_000_000)
		k.do(payer, "POST", "/v1/me/payments", fmt.Sprintf(`{"input":%q}`, inv.LnInvoice.Bolt11)).expect(t, 201, "")
		k.prices.setAll("EUR", "100000")
		k.clock.add(time.Hour) // past max_age: read again
		var bal struct {
			AvailableMsat int64 `json:"available_msat"`
			Fiat          *struct {
				Currency, Available, Rate string
				At                        time.Time
			} `json:"fiat"`
		}
		k.do(tok, "GET", "/v1/me/balance?currency=EUR", "").expect(t, 200, "").json(t, &bal)
		if bal.AvailableMsat != 14_347_458 || bal.Fiat == nil || bal.Fiat.Currency != "EUR" || bal.Fiat.Rate != "1000" ||
			bal.Fiat.Available != "14.35" || !bal.Fiat.At.Equal(k.clock.Now()) {
			t.Fatalf("balance = %+v %+v, want 14,347,458 msat = 14.35 EUR at 1000 sat per euro, read now", bal, bal.Fiat)
		}
		if b := k.e.Balance(walletID); b.AvailableMsat != 14_347_458 {
			t.Fatalf("the ledger's balance = %+v", b)
		}
		var plain map[string]any
		k.do(tok, "GET", "/v1/me/balance", "").expect(t, 200, "").json(t, &plain)
		if _, ok := plain["fiat"]; ok {
			t.Fatalf("a balance asked without a currency shows one: %v", plain)
		}

		for _, c := range []struct {
			body   string
			status int
			code   string
		}{
			{`{"amount_msat":1000,"amount":"1.00","currency":"EUR"}`, 400, "invalid_request"},
			{`{"amount":"1.00"}`, 400, "invalid_request"},
			{`{"currency":"EUR"}`, 400, "invalid_request"},
			{`{"amount":"1,00","currency":"EUR"}`, 400, "invalid_request"},
			{`{"amount":"-1","currency":"EUR"}`, 400, "invalid_request"},
			{`{"amount":1.5,"currency":"EUR"}`, 400, "invalid_request"},
			{`{"amount":"1.00","currency":"EURO"}`, 400, "invalid_request"},
			{`{"amount":"1.00","currency":"XAU"}`, 422, "unknown_currency"},
			{`{"amount":"0.0000001","currency":"EUR"}`, 422, "invalid_amount"}, // 0.1 msat: none
		} {
			k.do(tok, "POST", "/v1/me/invoices", c.body).expect(t, c.status, c.code)
		}
		k.do(tok, "GET", "/v1/me/balance?currency=XAU", "").expect(t, 422, "unknown_currency")
		k.do(tok, "GET", "/v1/me/balance?currency=", "").expect(t, 400, "invalid_request")

		// No source fresh: refused, never a stale price, and nothing made.
		for _, src := range []string{"kraken", "bitstamp", "coinbase", "mempool", "yadio"} {
			k.prices.fail(src, true)
		}
		k.clock.add(time.Hour)
		var before []invoiceRecord
		k.do(tok, "GET", "/v1/me/invoices", "").expect(t, 200, "").json(t, &before)
		k.do(tok, "POST", "/v1/me/invoices", `{"amount":"1.00","currency":"EUR"}`).expect(t, 503, "rates_unavailable")
		k.do(tok, "GET", "/v1/me/balance?currency=EUR", "").expect(t, 503, "rates_unavailable")
		var after []invoiceRecord
		k.do(tok, "GET", "/v1/me/invoices", "").expect(t, 200, "").json(t, &after)
		if len(after) != len(before) {
			t.Fatalf("a refused invoice was made: %d invoices, then %d", len(before), len(after))
		}
	})
}

func mustRat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("%q is no decimal", s)
	}
	return r
}

// A wallet's currency: the instance's until its owner chooses one of those
// offered, its own after, and the instance's again when set to null; one
// owner's choice is theirs alone.
func TestWalletCurrencyOverHTTP(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, func(s *rates.Settings) { s.Currencies, s.Currency = "USD,EUR", "EUR" })
		alice, _ := k.user("alice", 0)
		bob, _ := k.user("bob", 0)
		var c rates.WalletCurrency
		k.do(alice, "GET", "/v1/me/currency", "").expect(t, 200, "").json(t, &c)
		if c.Currency != "EUR" || !c.Default || !slices.Equal(c.Offered, []string{"USD", "EUR"}) {
			t.Fatalf("a new wallet's currency = %+v, want the instance's EUR", c)
		}
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":"usd"}`).expect(t, 200, "").json(t, &c)
		if c.Currency != "USD" || c.Default {
			t.Fatalf("after choosing USD: %+v", c)
		}
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":"USD"}`).expect(t, 200, "") // again: the same
		var me struct{ Currency string }
		k.do(alice, "GET", "/v1/me", "").expect(t, 200, "").json(t, &me)
		if me.Currency != "USD" {
			t.Fatalf("alice's wallet record shows currency %q, want USD", me.Currency)
		}
		k.do(bob, "GET", "/v1/me/currency", "").expect(t, 200, "").json(t, &c)
		if c.Currency != "EUR" || !c.Default {
			t.Fatalf("alice's choice moved bob's: %+v", c)
		}
		k.do(bob, "GET", "/v1/me", "").expect(t, 200, "").json(t, &me)
		if me.Currency != "EUR" {
			t.Fatalf("bob's wallet record shows currency %q, want the instance's EUR", me.Currency)
		}
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":"XAU"}`).expect(t, 422, "unknown_currency")
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":"euro"}`).expect(t, 400, "invalid_request")
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":7}`).expect(t, 400, "")
		k.do("", "GET", "/v1/me/currency", "").expect(t, 401, "")
		k.do(alice, "GET", "/v1/me/currency", "").expect(t, 200, "").json(t, &c)
		if c.Currency != "USD" {
			t.Fatalf("a refused change changed it: %+v", c)
		}
		k.do(alice, "PUT", "/v1/me/currency", `{"currency":null}`).expect(t, 200, "").json(t, &c)
		if c.Currency != "EUR" || !c.Default {
			t.Fatalf("back to the instance's: %+v", c)
		}
	})
}
