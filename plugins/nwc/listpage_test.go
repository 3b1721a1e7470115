package nwc_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestListTransactionsFitsOneEvent lists a wallet of 200 transactions,
// each with a long description, with limit 1000: the answer comes (a page
// of them all would pass NIP-44's 65,535 bytes and get none), capped at
// 50 and cut to what one event holds, with total_count 201 (and the deposit); the app
// reads on with offset. The time to the answer is logged, not asserted.
func TestListTransactionsFitsOneEvent(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 1_000_000, auth.AllScopes)
		bob, _ := k.user("bob", 1_000_000, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "ledger app"})
		long := strings.Repeat("a long line on the bill ", 25)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range 200 {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				payer, payee := bob, alice // 100 incoming
				if i%2 == 1 {
					payer, payee = alice, bob // 100 outgoing
				}
				r := k.do(payee, "POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000, "description": long})
				var inv struct {
					LnInvoice struct {
						Bolt11 string `json:"bolt11"`
					} `json:"ln_invoice"`
				}
				r.decode(t, &inv)
				if r := k.do(payer, "POST", "/v1/me/payments", map[string]any{"input": inv.LnInvoice.Bolt11}); r.Code != 201 {
					t.Errorf("paying: %d %s", r.Code, r.Body)
				}
			})
		}
		wg.Wait()

		var page struct {
			Transactions []map[string]any `json:"transactions"`
			TotalCount   *int             `json:"total_count"`
		}
		start := time.Now()
		a.Call("list_transactions", map[string]any{"limit": 1000}).Decode(t, &page)
		t.Logf("list_transactions of 200 with limit 1000: %d rows in %s", len(page.Transactions), time.Since(start))
		if page.TotalCount == nil || *page.TotalCount != 201 { // and the deposit that funded alice
			t.Fatalf("total_count = %d", *page.TotalCount)
		}
		if n := len(page.Transactions); n == 0 || n > 50 {
			t.Fatalf("%d transactions in the page", n)
		}
		first := len(page.Transactions)
		page.Transactions = nil
		a.Call("list_transactions", map[string]any{"limit": 10, "offset": first}).Decode(t, &page)
		if len(page.Transactions) != 10 || *page.TotalCount != 201 {
			t.Fatalf("the next page: %d rows, total %v", len(page.Transactions), *page.TotalCount)
		}
	})
}
