package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// row is an invoice or a payment as the pager orders them.
type row struct {
	ID        string `json:"id"`
	CreatedAt string `json:"created_at"`
}

// newerRow is records.js's order: created_at, then id.
func newerRow(a, b row) bool {
	ta, _ := time.Parse(time.RFC3339Nano, a.CreatedAt)
	tb, _ := time.Parse(time.RFC3339Nano, b.CreatedAt)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.ID > b.ID
}

// TestActivityPager reads a wallet's invoices and payments a page of two
// at a time with the dashboard's pager and checks it returns every record
// once, newest first, as the two lists of the API merge, each page after
// the first read from the cursor of its list's Link header, not by offset.
func TestActivityPager(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 10_000_000}, http.StatusCreated, &fund, admin...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(10_000_000, admin...)
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, http.StatusCreated, &bobKey, admin...)
	for i := range 3 {
		var inv invoice
		h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1000}, http.StatusCreated, &inv, apiKey(bobKey.Key)...)
		h.call("POST", "/v1/me/payments", map[string]string{"input": inv.LnInvoice.Bolt11}, http.StatusCreated, nil,
			append(admin, idem(fmt.Sprint("p", i))...)...)
		h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 2000}, http.StatusCreated, nil, admin...)
	}
	var invoices, payments []row
	h.call("GET", "/v1/me/invoices", nil, http.StatusOK, &invoices, admin...)
	h.call("GET", "/v1/me/payments", nil, http.StatusOK, &payments, admin...)
	var want []string
	for len(invoices) > 0 || len(payments) > 0 {
		if len(payments) == 0 || (len(invoices) > 0 && newerRow(invoices[0], payments[0])) {
			want, invoices = append(want, invoices[0].ID), invoices[1:]
		} else {
			want, payments = append(want, payments[0].ID), payments[1:]
		}
	}
	if len(want) != 7 {
		t.Fatalf("%d records, want 4 invoices and 3 payments", len(want))
	}

	ctx := startBrowser(t, chromium, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(h.URL+"/assets/icon.svg"),
		chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem('hearth.token', `+jsString(tok.Token)+`)`)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const urls = [];
		const fetch = window.fetch;
		window.fetch = (url, init) => { urls.push(String(url)); return fetch(url, init); };
		const { activityPager } = await import('/assets/views/records.js');
		const p = activityPager({}, undefined, 2);
		const pages = [];
		for (const n of [3, 3, 5]) {
			pages.push({ ids: (await p.next(n)).map((r) => r.id), more: p.more });
		}
		const payments = activityPager({ kind: 'payments' }, undefined, 2);
		const sent = (await payments.next(10)).map((r) => r.kind);
		return JSON.stringify({ pages, sent, urls });
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Pages []struct {
			IDs  []string
			More bool
		}
		Sent []string
		URLs []string
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	var ids []string
	for i, p := range r.Pages {
		ids = append(ids, p.IDs...)
		if wantMore := i < 2; p.More != wantMore {
			t.Errorf("page %d: more = %v, want %v", i, p.More, wantMore)
		}
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("the pager returned\n%q\nwant\n%q", ids, want)
	}
	if strings.Join(r.Sent, " ") != "payment payment payment" {
		t.Errorf("payments only: %q", r.Sent)
	}
	firsts := 0
	for _, u := range r.URLs {
		switch {
		case strings.Contains(u, "offset="):
			t.Errorf("read by offset: %s", u)
		case !strings.Contains(u, "after="):
			firsts++
		}
	}
	if firsts != 3 || len(r.URLs) < 6 { // each list's first page: two, then the payments alone
		t.Errorf("%d first pages in the requests %q", firsts, r.URLs)
	}
}
