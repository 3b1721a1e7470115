package web_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// holdSecret is a preimage and its payment hash, in hex.
func holdSecret(t *testing.T) (preimage, hash string) {
	t.Helper()
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(b[:]), hex.EncodeToString(sum[:])
}

// TestDashboardHoldInvoices drives a hold invoice's record in Activity:
// made through the API and paid by the embedded node's outside payer, it
// shows Accepted and held until its settle_by; a wrong preimage is refused
// with the API's reason and leaves it Accepted; the right one settles it
// and credits the wallet. A second one, Accepted too, is cancelled after a
// confirm step.
func TestDashboardHoldInvoices(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	const funded = 1_000_000
	admin := h.fundedAdmin(funded)

	held := func(msat int64, desc string) (inv invoice, preimage string) {
		preimage, hash := holdSecret(t)
		h.call("POST", "/v1/me/hold-invoices", map[string]any{"amount_msat": msat, "payment_hash": hash, "description": desc},
			http.StatusCreated, &inv, admin...)
		h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": inv.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
		var got invoice
		h.call("GET", "/v1/me/invoices/"+inv.ID, nil, http.StatusOK, &got, admin...)
		if got.Status != "Accepted" {
			t.Fatalf("the hold invoice paid from outside is %s, want Accepted", got.Status)
		}
		return inv, preimage
	}
	status := func(id string) string {
		var got invoice
		h.call("GET", "/v1/me/invoices/"+id, nil, http.StatusOK, &got, admin...)
		return got.Status
	}
	badge := func(s string) string {
		return `//dl[@class='facts']//span[contains(@class,'badge')][normalize-space()='` + s + `']`
	}

	bike, preimage := held(50_000, "A used bike")
	p := openDashboard(t, chromium, h.URL, 6*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))
	p.do("open the held invoice", click(link("Activity")), visible(heading("Activity")),
		click(`//a[@class='row-link'][.//span[normalize-space()='A used bike']]`), visible(heading("Invoice")),
		visible(badge("Accepted")), visible(`//span[@id='detail-hold'][starts-with(normalize-space(), 'Paid and held until')]`),
		visible(button("Settle")), visible(button("Cancel invoice")))
	checkLabels(p)

	// A wrong preimage: the API's refusal shows, the invoice stays Accepted.
	wrong, _ := holdSecret(t)
	p.do("settle with a wrong preimage", typeIn("Preimage", wrong), click(button("Settle")),
		visible(`//section[@aria-label='Hold invoice']//p[@role='alert']`), visible(badge("Accepted")))
	p.w.take(t, "answered 422") // expected: the refusal, and the browser's line about it
	p.w.take(t, "status of 422")
	if s := status(bike.ID); s != "Accepted" {
		t.Fatalf("after a wrong preimage the invoice is %s, want Accepted", s)
	}
	p.screenshot("hold-wrong-preimage")

	// The right one: Settled, and the wallet credited.
	p.do("settle with the preimage", typeIn("Preimage", preimage), click(button("Settle")),
		visible(badge("Settled")), visible(`//dd/code[normalize-space()='`+preimage+`']`),
		chromedp.WaitNotPresent(button("Settle")), chromedp.WaitNotPresent(button("Cancel invoice")))
	if s := status(bike.ID); s != "Settled" {
		t.Fatalf("after settling the invoice is %s", s)
	}
	h.waitBalance(funded+50_000, admin...)
	p.do("the balance is credited", click(link("Home")), balanceIs("1,050 sats"))

	// A second one cancelled, after a confirm step.
	lamp, _ := held(20_000, "A lamp")
	p.do("open the second", click(link("Activity")), visible(heading("Activity")),
		click(`//a[@class='row-link'][.//span[normalize-space()='A lamp']]`), visible(badge("Accepted")))
	p.do("cancel it", click(button("Cancel invoice")), click(button("Cancel it now")),
		visible(badge("Cancelled")), visible(`//span[@id='detail-hold'][starts-with(normalize-space(), 'Cancelled')]`),
		chromedp.WaitNotPresent(button("Settle")))
	if s := status(lamp.ID); s != "Cancelled" {
		t.Fatalf("after cancelling the invoice is %s", s)
	}
	h.waitBalance(funded+50_000, admin...)
	p.w.check(t)
}
