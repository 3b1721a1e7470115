package nwc_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestBudgetsHoldUnderConcurrentPayments pays 120 invoices at once from
// one wallet: 60 over REST with a budgeted API key (50,000 msat) and 60
// over NWC with a budgeted connection (30,000 msat), 1,000 msat each.
// Exactly what fits each budget is paid, the rest refused before any
// money moved (422 budget_exceeded, QUOTA_EXCEEDED), and the books are
// exact.
func TestBudgetsHoldUnderConcurrentPayments(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, func(c *nwc.Config) { c.Burst = 1000 })
		alice, aliceW := k.user("alice", 1_000_000, auth.AllScopes)
		bob, bobW := k.user("bob", 0, auth.AllScopes)
		r := k.do(alice, "POST", "/v1/me/api-keys", map[string]any{"name": "shop", "permissions": []string{"read:transaction", "write:transaction"},
			"budget": map[string]any{"max_msat": 50_000, "renewal": "monthly"}})
		if r.Code != http.StatusCreated {
			t.Fatalf("creating a budgeted key: %d %s", r.Code, r.Body)
		}
		var key struct{ ID, Key string }
		r.decode(t, &key)
		conn, a := k.connect(alice, map[string]any{"name": "zapper", "budget": map[string]any{"max_msat": 30_000, "renewal": "weekly"}})

		const each = 60
		invoices := make([]string, 2*each)
		for i := range invoices {
			invoices[i], _ = k.invoice(bob, 1_000)
		}
		var restPaid, restRefused, nwcPaid, nwcRefused atomic.Int64
		var wg sync.WaitGroup
		for i := range each {
			wg.Go(func() {
				r := k.do(key.Key, "POST", "/v1/me/payments", map[string]any{"input": invoices[i]})
				switch {
				case r.Code == http.StatusCreated:
					restPaid.Add(1)
				case r.Code == http.StatusUnprocessableEntity && contains([]string{string(r.Body)}, "budget_exceeded"):
					restRefused.Add(1)
				default:
					t.Errorf("REST payment: %d %s", r.Code, r.Body)
				}
			})
		}
		reqs := make(chan nostrtest.Response, each)
		for i := range each {
			wg.Go(func() { reqs <- a.Call("pay_invoice", map[string]any{"invoice": invoices[each+i]}) })
		}
		wg.Wait()
		close(reqs)
		for r := range reqs {
			switch r.Code() {
			case "":
				nwcPaid.Add(1)
			case "QUOTA_EXCEEDED":
				nwcRefused.Add(1)
			default:
				t.Errorf("NWC payment: %+v", r)
			}
		}
		if restPaid.Load() != 50 || restRefused.Load() != 10 || nwcPaid.Load() != 30 || nwcRefused.Load() != 30 {
			t.Fatalf("REST %d paid, %d refused; NWC %d paid, %d refused", restPaid.Load(), restRefused.Load(), nwcPaid.Load(), nwcRefused.Load())
		}
		if got := e.Balance(aliceW.ID).AvailableMsat; got != 1_000_000-80_000 {
			t.Fatalf("alice has %d msat", got)
		}
		if got := e.Balance(bobW.ID).AvailableMsat; got != 80_000 {
			t.Fatalf("bob has %d msat", got)
		}
		var shown nwc.Connection
		k.do(alice, "GET", "/v1/me/nwc/connections/"+conn.ID, nil).decode(t, &shown)
		if shown.Budget == nil || shown.Budget.UsedMsat != 30_000 || shown.Budget.MaxMsat != 30_000 || shown.URI != "" {
			t.Fatalf("connection shown %+v budget %+v", shown, shown.Budget)
		}
		var keyShown struct {
			Budget struct {
				UsedMsat int64 `json:"used_msat"`
			}
		}
		k.do(alice, "GET", "/v1/me/api-keys/"+key.ID, nil).decode(t, &keyShown)
		if keyShown.Budget.UsedMsat != 50_000 {
			t.Fatalf("the key's budget shows %d used", keyShown.Budget.UsedMsat)
		}
		if breaches, err := e.Ledger.Check(t.Context()); err != nil || len(breaches) > 0 {
			t.Fatalf("ledger check: %v %+v", err, breaches)
		}
	})
}
