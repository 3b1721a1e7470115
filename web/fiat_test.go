package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Amounts in the wallet's currency, in the dashboard: the instance's
// currency beside sats from the first screen, another chosen in
// Settings, an invoice typed in it on Receive (asked for in euros,
// converted by the server at its rate and shown with it), paid, and the
// balance read in it.
func TestDashboardInACurrency(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearthWith(t, serverOptions{rates: "USD:95000,EUR:88000"})
	admin := h.fundedAdmin(100_000_000)

	p := openDashboard(t, chromium, h.URL, 5*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//p[@id='balance'][normalize-space()='100,000 sats (≈ 95.00 USD)']`))
	p.do("choose euros", click(link("Settings")), visible(heading("Settings")), choose("Show amounts in", "EUR"),
		click(button("Save currency")), visible(text("p", "Amounts now show in EUR.")))
	checkLabels(p)
	p.do("see the balance in euros", click(link("Home")), visible(`//p[@id='balance'][normalize-space()='100,000 sats (≈ 88.00 EUR)']`))
	p.do("ask for 12,50 EUR, typed with a decimal comma", click(link("Receive")), visible(heading("Receive")), typeIn("Amount", "12,50"), choose("In", "EUR"),
		click(button("Create invoice")),
		// 12.50 × 10^8/88,000 sat = 14,204,545.45… msat, to the msat
		visible(`//section[@aria-label='Invoice']/h2[normalize-space()='14,204.545 sats (≈ 12.50 EUR)']`),
		visible(`//p[@class='invoice-fiat'][normalize-space()='Asked for 12.50 EUR at 1136.3636363636 sat per EUR (a rate set by hand)']`))
	checkLabels(p)
	bolt11 := get(p, "read the invoice", chromedp.Evaluate[string](`document.getElementById('bolt11').value`))
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": bolt11}, http.StatusNoContent, nil, admin...)
	p.do("see it paid", visible(`//p[@class='invoice-state'][contains(normalize-space(), '14,204.545 sats (≈ 12.50 EUR) received')]`))
	var b struct {
		Fiat struct{ Currency, Available string } `json:"fiat"`
	}
	h.call("GET", "/v1/me/balance?currency=EUR", nil, http.StatusOK, &b, admin...)
	if b.Fiat.Currency != "EUR" || b.Fiat.Available != "100.50" {
		t.Fatalf("the balance in euros = %+v, want 100.50 (88.00 + 12.50)", b.Fiat)
	}

	// Bob has the address bob@hearth.test; the admin sends him 5,00 EUR
	// from Send: 5.00 × 10^8/88,000 sat = 5,681.8… sat, to the satoshi.
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "write:ln_address"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	h.call("POST", "/v1/me/lightning-address", map[string]string{"username": "bob"}, http.StatusCreated, nil, bob...)
	p.do("send 5,00 EUR to bob's address", click(link("Send")), visible(heading("Send")), typeIn("Pay to", "bob@"+testDomain),
		typeIn("Amount", "5,00"), choose("In", "EUR"), click(button("Review payment")),
		visible(`//dd[@id='preview-asked'][normalize-space()='5.00 EUR, priced in sats at the rate when it is sent']`),
		visible(`//dd[@id='preview-amount'][normalize-space()='5,681 sats (≈ 5.00 EUR)']`))
	checkLabels(p)
	p.do("send it", click(button("Send")), visible(`//div[@role='status']//span[normalize-space()='Settled']`),
		visible(`//p[@id='result-fiat'][normalize-space()='Asked 5.00 EUR at 1136.3636363636 sat per EUR (a rate set by hand).']`))
	h.waitBalance(5_681_000, bob...)
	// Settled, each record shows what it was worth then, at the rate the
	// server recorded (a rate set by hand, recorded at start).
	p.do("see what it was worth", click(link("Activity")), visible(heading("Activity")),
		visible(`//span[contains(@class,'row-amount')][normalize-space()='−5,681 sats (5.00 EUR then)']`),
		visible(`//span[contains(@class,'row-amount')][normalize-space()='+14,204.545 sats (12.50 EUR then)']`),
		click(`//span[contains(@class,'row-amount')][normalize-space()='−5,681 sats (5.00 EUR then)']`),
		visible(`//span[@id='detail-asked'][normalize-space()='5.00 EUR at 1136.3636363636 sat per EUR (a rate set by hand)']`),
		visible(`//span[@id='detail-value'][normalize-space()='5.00 EUR at 1136.3636363636 sat per EUR (a rate set by hand)']`))
	checkLabels(p)
	p.w.check(t)
}
