package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardShowsAConsumerThatIsOffAsOff is issue 49's Home that
// alarmed for nothing: on a server with Wallet Connect but no relays (so
// it is off), once payments have written events, the admin's Home shows
// the built-in nwc's consumer Off, not events behind, and the host's
// streams (the webhooks'), which run, with their lag; on both databases.
func TestDashboardShowsAConsumerThatIsOffAsOff(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	for _, db := range []struct {
		name     string
		postgres bool
	}{{"sqlite", false}, {"postgres", true}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			h := startHearthWith(t, serverOptions{nwc: true, postgres: db.postgres})
			h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
			var tok struct{ Token string }
			h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
			admin := bearer(tok.Token)
			for range 3 { // three invoices paid: three events nwc would notify of
				var inv invoice
				h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000}, http.StatusCreated, &inv, admin...)
				h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": inv.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
			}
			h.waitBalance(3_000, admin...)

			p := openDashboard(t, chromium, h.URL, 4*time.Minute)
			p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
				visible(heading("Wallet")), balanceIs("3 sats"), visible(text("h2", "This server")))
			p.do("the consumers",
				visible(`//li[@data-name='builtin:nwc'][@data-state='off']/span[normalize-space()='Off']`),
				visible(`//li[@data-name='host:streams'][@data-state='running']`))
			line := get(p, "read nwc's line", chromedp.Evaluate[string](
				`document.querySelector("li.consumer[data-name='builtin:nwc']").textContent`))
			if line != "builtin:nwc Off" {
				t.Errorf("nwc's consumer shows %q, want %q", line, "builtin:nwc Off")
			}
			p.w.check(t)
		})
	}
}
