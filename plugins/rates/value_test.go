package rates_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/rates"
)

// valued is what the tests read of a record's value.
type valued struct {
	ID    string       `json:"id"`
	Value *ledger.Fiat `json:"value"`
}

// Settled records show their value in their wallet's currency at the rate
// the plugin's lead recorded when they settled: the payee's invoice in
// dollars, the payer's payment in euros; the same records read the same
// after the rate moved, while a record settled after it reads the new
// rate; a record settled with no rate younger than max_age then has no
// value, and one not settled has none.
func TestRecordsValuedAtTheirTime(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, func(s *rates.Settings) {
			s.Currencies, s.Refresh = "USD,EUR", config.Duration{Duration: time.Second}
		})
		k.e.Ledger.SetClock(k.clock.Now) // the ledger settles on the plugin's clock
		k.prices.setAll("USD", "100000") // 1,000 sat a dollar
		k.prices.setAll("EUR", "50000")  // 2,000 sat a euro
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); k.e.Registry.RunBuiltins(ctx, k.e.Outbox) }()
		t.Cleanup(func() { cancel(); <-done })
		// The lead records the currencies in use: read once, as the
		// dashboard reads its wallet's.
		k.do("", "GET", "/v1/rates", "").expect(t, 200, "")
		k.waitRecorded(t, "USD", "1000")
		k.waitRecorded(t, "EUR", "2000")

		merchant, _ := k.user("merchant", 0)
		payer, _ := k.user("payer", 10_000_000)
		k.do(payer, "PUT", "/v1/me/currency", `{"currency":"EUR"}`).expect(t, 200, "")
		first := k.sale(t, merchant, payer, 200_000)
		pending := k.invoice(t, merchant, 300_000)
		k.expectValue(t, merchant, "/v1/me/invoices/"+first.invoice, "0.20", "USD", "1000")
		k.expectValue(t, payer, "/v1/me/payments/"+first.payment, "0.10", "EUR", "2000")
		k.expectValue(t, merchant, "/v1/me/invoices/"+pending, "", "", "")

		// The dollar moves to 2,000 sat, 20 minutes later.
		k.prices.setAll("USD", "50000")
		k.clock.add(20 * time.Minute)
		k.waitRecorded(t, "USD", "2000")
		second := k.sale(t, merchant, payer, 200_000)
		k.expectValue(t, merchant, "/v1/me/invoices/"+first.invoice, "0.20", "USD", "1000")
		k.expectValue(t, merchant, "/v1/me/invoices/"+second.invoice, "0.10", "USD", "2000")
		var list []valued
		k.do(merchant, "GET", "/v1/me/invoices?status=Settled", "").expect(t, 200, "").json(t, &list)
		if len(list) != 2 || list[0].ID != second.invoice || list[0].Value == nil || list[0].Value.Amount != "0.10" ||
			list[1].Value == nil || list[1].Value.Amount != "0.20" {
			t.Fatalf("the list of settled invoices = %+v, want the second at 0.10 USD and the first at 0.20", list)
		}

		// No source answers: 15 minutes on, the last rate is older than
		// max_age, and a sale then has no value.
		for _, src := range []string{"kraken", "bitstamp", "coinbase", "mempool", "yadio"} {
			k.prices.fail(src, true)
		}
		k.clock.add(15 * time.Minute)
		third := k.sale(t, merchant, payer, 200_000)
		k.expectValue(t, merchant, "/v1/me/invoices/"+third.invoice, "", "", "")
		k.expectValue(t, merchant, "/v1/me/invoices/"+second.invoice, "0.10", "USD", "2000")
	})
}

// waitRecorded waits until the lead recorded rate for currency.
func (k *kit) waitRecorded(t *testing.T, currency, rate string) {
	t.Helper()
	poll.Until(t, 20*time.Second, func() error {
		var n int
		err := k.e.DB.R.NewRaw("SELECT count(*) FROM rates_history WHERE currency = ? AND rate = ?", currency, rate).
			Scan(context.Background(), &n)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("no rate %s of %s recorded", rate, currency)
		}
		return nil
	})
}

// sale is an invoice of the merchant's paid by the payer.
type sale struct{ invoice, payment string }

// sale has merchant ask for msat and payer pay it.
func (k *kit) sale(t *testing.T, merchant, payer string, msat int64) sale {
	t.Helper()
	var inv invoiceRecord
	k.do(merchant, "POST", "/v1/me/invoices", fmt.Sprintf(`{"amount_msat":%d}`, msat)).expect(t, 201, "").json(t, &inv)
	var p valued
	k.do(payer, "POST", "/v1/me/payments", fmt.Sprintf(`{"input":%q}`, inv.LnInvoice.Bolt11)).expect(t, 201, "").json(t, &p)
	return sale{inv.ID, p.ID}
}

// invoice has merchant ask for msat; nobody pays it.
func (k *kit) invoice(t *testing.T, merchant string, msat int64) string {
	t.Helper()
	var inv invoiceRecord
	k.do(merchant, "POST", "/v1/me/invoices", fmt.Sprintf(`{"amount_msat":%d}`, msat)).expect(t, 201, "").json(t, &inv)
	return inv.ID
}

// expectValue checks the value of the record at path ("" amount: none).
func (k *kit) expectValue(t *testing.T, token, path, amount, currency, rate string) {
	t.Helper()
	var r valued
	k.do(token, "GET", path, "").expect(t, 200, "").json(t, &r)
	switch v := r.Value; {
	case amount == "" && v != nil:
		t.Fatalf("%s has the value %+v, want none", path, *v)
	case amount == "":
	case v == nil:
		t.Fatal(errors.New(path + " has no value"))
	case v.Amount != amount || v.Currency != currency || v.Rate != rate || v.At.IsZero():
		t.Fatalf("%s is valued %+v, want %s %s at %s", path, *v, amount, currency, rate)
	}
}
