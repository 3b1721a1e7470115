package web_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chartBars is what the panel's chart draws: its bars, those with a
// count, those drawn with a height, and the counts in all.
type chartBars struct {
	Bars, Counted, Drawn, Total int
}

const readBars = `(() => {
	const bars = [...document.querySelectorAll('section.stats svg.stats-chart rect.bar')];
	const n = (b) => Number(b.dataset.count);
	return {
		Bars: bars.length,
		Counted: bars.filter((b) => n(b) > 0).length,
		Drawn: bars.filter((b) => b.getBoundingClientRect().height > 0).length,
		Total: bars.reduce((s, b) => s + n(b), 0),
	};
})()`

// renderedStats is what the panel shows of an answer made up in the page.
type renderedStats struct {
	Behind     []string
	Consumers  int
	Node       string
	LastMinute string
	Alerts     []string
	Hour       string
}

// TestDashboardServerStats drives the admin's Home panel of this
// server's numbers, on a server without metrics.listen (as by default:
// the metrics are counted all the same): the node up and the built-in
// webhooks' consumer listed; payments made through the API while Home is
// shown appear at the panel's next refresh, without a reload, in the last
// minute, in the hour's total and as a drawn bar of the chart; nothing is
// wider than a 390 px screen; a user signed in with a key sees no panel
// (and never asks for it: the watcher would catch its 403).
func TestDashboardServerStats(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 10_000_000}, http.StatusCreated, &fund, bob...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(10_000_000, bob...)
	pay := func(n int) { // bob pays the admin n times, inside the server
		for range n {
			var inv invoice
			h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000_000}, http.StatusCreated, &inv, admin...)
			h.call("POST", "/v1/me/payments", map[string]string{"input": inv.LnInvoice.Bolt11}, http.StatusCreated, nil, bob...)
		}
	}

	p := openDashboard(t, chromium, h.URL, 6*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), balanceIs("0 sats"), visible(text("h2", "This server")))
	p.do("the panel, before any payment",
		visible(`//p[@id='stats-hour'][starts-with(normalize-space(), '0 payments settled in the last hour')]`),
		visible(`//dd[@id='stats-last-minute'][normalize-space()='0 payments']`),
		visible(`//dd[@id='stats-node'][contains(., 'embedded')]/span[normalize-space()='Up']`),
		visible(`//li[@data-name='host:streams']/code[normalize-space()='host:streams']`))
	if b := get(p, "read the empty chart", chromedp.Evaluate[chartBars](readBars)); b != (chartBars{Bars: 60}) {
		t.Fatalf("the chart before any payment: %+v; want 60 empty bars", b)
	}

	// Two payments while Home is shown: the panel reads again on its own
	// (every 20 s, so within 60 s of them: both in the last minute).
	pay(2)
	p.do("the panel refreshes", balanceIs("2,000 sats"),
		visible(`//p[@id='stats-hour'][starts-with(normalize-space(), '2 payments settled in the last hour')]`),
		visible(`//dd[@id='stats-last-minute'][normalize-space()='2 payments']`),
		visible(`//*[local-name()='svg'][@role='img'][starts-with(@aria-label, 'Payments settled each minute over the last hour: 2 in all')]`))
	if b := get(p, "read the chart", chromedp.Evaluate[chartBars](readBars)); b.Bars != 60 || b.Counted < 1 || b.Drawn != b.Counted || b.Total != 2 {
		t.Fatalf("the chart: %+v; want 60 bars, the 2 payments in a drawn bar or two", b)
	}
	p.screenshot("home-admin-stats")

	// An answer with a consumer behind, one not, the node down, a failed
	// payment and an error, rendered as the panel renders it.
	shown := get(p, "render a bad minute", chromedp.Evaluate[renderedStats](`(async () => {
		const { renderStats } = await import('/assets/views/stats.js');
		const start = Date.parse('2026-11-27T13:00:00Z');
		const minutes = Array.from({ length: 60 }, (_, i) => ({ start: new Date(start + i * 60000).toISOString(),
			settled: i === 59 ? 0 : i % 7, failed: 0, settled_by_ledger: {} }));
		const el = renderStats({ at: '2026-11-27T13:59:30Z', since: '2026-11-27T12:00:00Z',
			payments: { last_minute: { settled: 0, failed: 2, settled_by_ledger: {} }, minutes },
			node: { backend: 'lnd', up: false, block_height: 0, channels: 0 },
			outbox: { head: 9, consumers: [{ name: 'builtin:webhooks', lag_events: 4, lag_seconds: 90.4 },
				{ name: 'plugin:x', lag_events: 1, lag_seconds: 5 }] },
			errors: ['reading the next event of plugin:x: boom'] });
		return {
			Behind: [...el.querySelectorAll('li.behind')].map((li) => li.dataset.name + ': ' + li.textContent),
			Consumers: el.querySelectorAll('li.consumer').length,
			Node: el.querySelector('#stats-node').textContent,
			LastMinute: el.querySelector('#stats-last-minute').textContent,
			Alerts: [...el.querySelectorAll('[role=alert]')].map((a) => a.textContent),
			Hour: el.querySelector('#stats-hour').textContent,
		};
	})()`, chromedp.EvalAwaitPromise))
	want := renderedStats{
		Behind:     []string{"builtin:webhooks: builtin:webhooks 4 events behind, the oldest 90 s old Behind"},
		Consumers:  2,
		Node:       "lnd: Down",
		LastMinute: "0 payments, 2 failed",
		Alerts:     []string{"reading the next event of plugin:x: boom"},
		Hour:       "171 payments settled in the last hour; at most 6 in a minute.",
	}
	if !reflect.DeepEqual(shown, want) {
		t.Errorf("a bad minute rendered:\n%+v\nwant\n%+v", shown, want)
	}
	checkLabels(p)
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		visible(text("h2", "This server")))
	checkNoOverflow(p)
	p.screenshot("home-admin-stats-390")

	// Bob, with his key: his Home has no panel.
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	p.do("sign in with bob's key", typeIn("API key", bobKey.Key), click(button("Sign in with the key")),
		visible(heading("Wallet")), balanceIs("8,000 sats"))
	if n := get(p, "look for the panel", chromedp.Evaluate[int](`document.querySelectorAll('section.stats').length`)); n != 0 {
		t.Fatal("a user who is not the admin sees this server's numbers")
	}
	p.w.check(t)
}
