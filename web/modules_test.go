package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestModules runs the dashboard's own modules in Chromium on cases: the
// BOLT11 preview against an invoice the server made, amounts typed and
// shown, the exports' paths, and what the plugin forms send and say.
func TestModules(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	var inv struct {
		LnInvoice struct {
			Bolt11    string    `json:"bolt11"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"ln_invoice"`
	}
	const desc = "café ☕ <b>beans</b>, \"fresh\""
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 2_500_000, "description": desc, "expiry": 600},
		http.StatusCreated, &inv, bearer(tok.Token)...)

	ctx := startBrowser(t, chromium, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(h.URL+"/assets/icon.svg")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const { decodeBolt11 } = await import('/assets/bolt11.js');
		const { formatMsat, formatMsatThen, satsToMsat } = await import('/assets/dom.js');
		const { exportPath, dayStart } = await import('/assets/views/export.js');
		const { sseParser } = await import('/assets/api.js');
		const { configValue, missingConfig, scopeText } = await import('/assets/views/pluginforms.js');
		const typed = (type, value) => configValue({ type }, { value, checked: value === 'on' });
		const events = [];
		const push = sseParser((e) => events.push(e));
		for (const c of [': events of the outbox\n\n', 'id: 5\nevent: invoice.settled\ndata: {"a":', '1}\r', '\n\r\n',
			': heartbeat\n\n', 'data: x\ndata: y\n\n', 'id: 7\n\n', 'data:z\r\r', '\nid:8\n']) push(c);
		const inv = decodeBolt11(`+jsString(inv.LnInvoice.Bolt11)+`);
		const upper = decodeBolt11('lightning:' + `+jsString(inv.LnInvoice.Bolt11)+`.toUpperCase());
		return JSON.stringify({
			amount: inv.amountMsat, description: inv.description, network: inv.network,
			expires: Math.round(inv.expiresAt.getTime() / 1000),
			upperAmount: upper && upper.amountMsat,
			notInvoices: ['hello', 'bob@example.com', 'lnbc1', '', 'bitcoin:bcrt1qxyz'].map(decodeBolt11),
			formatted: [0, 1500, 1234000, -1000, 1, null].map(formatMsat),
			then: [formatMsatThen(1234000, { amount: '1.17', currency: 'EUR' }), formatMsatThen(-1000, { amount: '0.01', currency: 'USD' }),
				formatMsatThen(1500, null)],
			typed: ['2,500', ' 21 ', '0', '1.5', '-3', 'abc', '', '1e3'].map(satsToMsat),
			exports: [exportPath('payments', { status: 'Settled', ledger: '' }, '2026-11-01', '2026-11-30'), exportPath('invoices', {}, '', ''),
				dayStart('2026-11-01'), dayStart('2026-11-30', 1), dayStart('nope')],
			days: [new Date(2026, 10, 1).toISOString(), new Date(2026, 11, 1).toISOString()],
			config: [['integer', ' 21000 '], ['integer', '1e3'], ['integer', '1.5'], ['integer', 'abc'], ['integer', ''],
				['number', '-.25'], ['number', '0x10'], ['string', ''], ['string', ' a b '], ['boolean', 'on'], ['boolean', '']]
				.map(([type, v]) => { const x = typed(type, v); return x === undefined ? 'omitted' : x; }),
			missing: missingConfig({ config_schema: { a: { type: 'string', required: true }, b: { type: 'integer', required: true },
				c: { type: 'string' } }, config: { b: 1 } }),
			scopes: ['write:transaction', 'http:outbound:hooks.example.com', 'well-known:lnurlp', 'nope'].map(scopeText),
			events,
		});
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Amount      int64
		Description string
		Network     string
		Expires     int64
		UpperAmount int64
		NotInvoices []any
		Formatted   []string
		Then        []string
		Typed       []*int64
		Exports     []string
		Days        []string
		Config      []any
		Missing     []string
		Scopes      []string
		Events      []struct {
			ID   *string
			Type string
			Data string
		}
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if r.Amount != 2_500_000 || r.UpperAmount != 2_500_000 || r.Description != desc || r.Network != "bcrt" {
		t.Errorf("decoded %+v, want 2500000 msat, %q on bcrt", r, desc)
	}
	if r.Expires != inv.LnInvoice.ExpiresAt.Unix() {
		t.Errorf("decoded expiry %d, the server's %d", r.Expires, inv.LnInvoice.ExpiresAt.Unix())
	}
	for i, v := range r.NotInvoices {
		if v != nil {
			t.Errorf("case %d decoded as an invoice: %v", i, v)
		}
	}
	wantFormatted := []string{"0 sats", "1.5 sats", "1,234 sats", "-1 sats", "0.001 sats", "—"}
	for i, w := range wantFormatted {
		if i >= len(r.Formatted) || r.Formatted[i] != w {
			t.Errorf("formatMsat case %d = %q, want %q", i, r.Formatted, w)
		}
	}
	if want := []string{"1,234 sats (1.17 EUR then)", "-1 sats (-0.01 USD then)", "1.5 sats"}; !slices.Equal(r.Then, want) {
		t.Errorf("formatMsatThen = %q, want %q", r.Then, want)
	}
	wantTyped := []int64{2_500_000, 21_000, -1, -1, -1, -1, -1, -1} // -1: refused (null)
	for i, w := range wantTyped {
		switch {
		case i >= len(r.Typed):
			t.Errorf("satsToMsat case %d missing", i)
		case w < 0 && r.Typed[i] != nil:
			t.Errorf("satsToMsat case %d = %d, want it refused", i, *r.Typed[i])
		case w >= 0 && (r.Typed[i] == nil || *r.Typed[i] != w):
			t.Errorf("satsToMsat case %d = %v, want %d", i, r.Typed[i], w)
		}
	}
	// An export's days are the browser's: from the first's midnight there
	// to the midnight after the last.
	if len(r.Days) != 2 {
		t.Fatalf("days %q", r.Days)
	}
	wantExports := []string{"/v1/me/payments/export?format=csv&status=Settled&from=" + url.QueryEscape(r.Days[0]) + "&to=" + url.QueryEscape(r.Days[1]),
		"/v1/me/invoices/export?format=csv", r.Days[0], r.Days[1], ""}
	if !reflect.DeepEqual(r.Exports, wantExports) {
		t.Errorf("exportPath and dayStart = %q, want %q", r.Exports, wantExports)
	}
	// What the config form sends: numbers as numbers, anything else as
	// typed for the API to refuse, and nothing for an empty field.
	wantConfig := []any{21000.0, 1000.0, 1.5, "abc", "omitted", -0.25, "0x10", "omitted", " a b ", true, false}
	if !reflect.DeepEqual(r.Config, wantConfig) {
		t.Errorf("configValue = %#v, want %#v", r.Config, wantConfig)
	}
	if fmt.Sprint(r.Missing) != "[a]" {
		t.Errorf("missingConfig = %v, want [a]", r.Missing)
	}
	wantScopes := []string{"create invoices and send payments: it can spend the wallet’s money", "send HTTP requests to hooks.example.com",
		"answer /.well-known/lnurlp at this server’s address", ""}
	if fmt.Sprint(r.Scopes) != fmt.Sprint(wantScopes) {
		t.Errorf("scopeText = %q, want %q", r.Scopes, wantScopes)
	}
	type sse struct{ id, typ, data string }
	wantEvents := []sse{{"5", "invoice.settled", `{"a":1}`}, {"", "message", "x\ny"}, {"", "message", "z"}}
	if len(r.Events) != len(wantEvents) {
		t.Errorf("the stream parser read %+v, want %v", r.Events, wantEvents)
	} else {
		for i, w := range wantEvents {
			e := r.Events[i]
			id := ""
			if e.ID != nil {
				id = *e.ID
			}
			if id != w.id || e.Type != w.typ || e.Data != w.data {
				t.Errorf("event %d = %q %q %q, want %v", i, id, e.Type, e.Data, w)
			}
		}
	}
}
