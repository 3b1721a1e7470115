package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/chromedp/chromedp"
)

// withdrawLink is a link as GET /v1/me/withdraw-links shows it.
type withdrawLink struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	LNURL  string `json:"lnurl"`
	Used   int    `json:"used"`
	Claims []struct {
		State string `json:"state"`
	} `json:"claims"`
}

// claimAsWallet claims the link for an invoice of bob's of msat, as an
// LNURL wallet does: the bech32 decoded, the withdrawRequest read, the
// callback called with its k1 and the invoice.
func claimAsWallet(t *testing.T, h *hearth, lnurl string, msat int64, bob []string) {
	t.Helper()
	hrp, data, err := bech32.DecodeNoLimit(strings.ToLower(lnurl))
	if err != nil || hrp != "lnurl" {
		t.Fatalf("lnurl %s: %v", lnurl, err)
	}
	raw, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.srv.Client().Get(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	var wr struct {
		Callback, K1 string
	}
	err = json.NewDecoder(resp.Body).Decode(&wr)
	resp.Body.Close()
	if err != nil || wr.Callback == "" {
		t.Fatalf("the withdrawRequest: %v %+v", err, wr)
	}
	var inv invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": msat}, http.StatusCreated, &inv, bob...)
	resp, err = h.srv.Client().Get(wr.Callback + "?k1=" + wr.K1 + "&pr=" + inv.LnInvoice.Bolt11)
	if err != nil {
		t.Fatal(err)
	}
	var st struct{ Status, Reason string }
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Status != "OK" {
		t.Fatalf("the callback: %v %+v", err, st)
	}
}

// TestDashboardWithdrawLinks drives the Withdraw links view and Receive's
// claim: a sheet of three single-use vouchers made, shown one per cell
// with its QR code and amount, ready to print; one claimed by another
// wallet as an LNURL wallet does, its claim then shown paid; one revoked
// after a confirm step; and a link of another wallet pasted into
// Receive's "Claim a withdraw link", claimed, and seen arriving live.
func TestDashboardWithdrawLinks(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearthWith(t, serverOptions{withdraw: true})
	admin := h.fundedAdmin(100_000_000)

	// Bob, funded, with a link of his own (made through the API).
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction", "write:api_key"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 50_000_000}, http.StatusCreated, &fund, bob...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(50_000_000, bob...)
	var bobs withdrawLink
	h.call("POST", "/v1/me/withdraw-links", map[string]any{"title": "From Bob", "min_msat": 1000, "max_msat": 21_000},
		http.StatusCreated, &bobs, bob...)

	p := openDashboard(t, chromium, h.URL, 6*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))
	p.do("open Withdraw links", click(link("Withdraw links")), visible(heading("Withdraw links")), visible(text("p", "No withdraw links.")))
	checkLabels(p)

	// A sheet of three vouchers of 5 sats.
	p.do("make vouchers", typeIn("Title", "Raffle"), typeIn("Smallest claim (sats)", "5"), typeIn("Largest claim (sats)", "5"),
		typeIn("Vouchers", "3"), click(button("Create")),
		visible(`//section[@aria-label='Vouchers']//h2[normalize-space()='3 vouchers']`), visible(button("Print vouchers")))
	cells := get(p, "count the vouchers", chromedp.Evaluate[int](`document.querySelectorAll('.voucher-grid .voucher svg.qr').length`))
	if cells != 3 {
		t.Fatalf("%d vouchers with a QR code, want 3", cells)
	}
	p.do("the sheet names each voucher", visible(`//li[@class='voucher'][strong[normalize-space()='5 sats']][span[normalize-space()='Raffle']]`))
	p.screenshot("withdraw-vouchers")

	// One voucher claimed by bob's wallet, as an LNURL wallet does.
	var mine []withdrawLink
	h.call("GET", "/v1/me/withdraw-links", nil, http.StatusOK, &mine, admin...)
	if len(mine) != 3 {
		t.Fatalf("%d links listed, want 3", len(mine))
	}
	claimAsWallet(t, h, mine[0].LNURL, 5000, bob)
	h.waitBalance(100_000_000-5000, admin...)
	row := `//li[@data-id='` + mine[0].ID + `']`
	p.do("the voucher's claim shows paid", chromedp.Reload(), visible(heading("Withdraw links")),
		click(row+button("Show claims")), visible(row+`//ul[@class='claims']//span[normalize-space()='Paid']`),
		visible(row+`//span[normalize-space()='Used 1 of 1']`))

	// Another voucher revoked, after a confirm step.
	gone := `//li[@data-id='` + mine[1].ID + `']`
	p.do("revoke a voucher", click(gone+button("Revoke")), click(gone+button("Revoke this link now")),
		chromedp.WaitNotPresent(gone))

	// Bob's link claimed on Receive: the invoice arrives live.
	p.do("claim bob's link", click(link("Receive")), visible(heading("Receive")),
		typeIn("Withdraw link", "lightning:"+bobs.LNURL), typeIn("Amount (sats, optional)", "21"), click(button("Claim")),
		visible(`//p[@role='status'][contains(normalize-space(), '21 sats received')]`))
	h.waitBalance(100_000_000-5000+21_000, admin...)
	p.screenshot("withdraw-claimed")
	p.w.check(t)
}
