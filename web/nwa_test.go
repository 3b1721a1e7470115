package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// TestDashboardWalletAuth pastes an app's nostr+walletauth link into the
// Wallet Connect view: the view shows what the app asks for (its name,
// the methods the wallet serves and those it does not, the budget, the
// relay) before anything is made; Approve connects the app's own key,
// with no secret shown, and the connection is listed; its info event,
// p-tagged to the app, is on the relay.
func TestDashboardWalletAuth(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	relay := startZapRelay(t)
	h := startHearthWith(t, serverOptions{nwc: true, nwcRelays: relay.url})
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)

	appPub, err := gonostr.GetPublicKey(gonostr.GeneratePrivateKey())
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"relay": {relay.url}, "request_methods": {"get_balance make_invoice sign_message"},
		"name": {"Stacker"}, "max_amount": {"2000"}, "budget_renewal": {"daily"}}
	nwa := "nostr+walletauth://" + appPub + "?" + q.Encode()

	p := openDashboard(t, chromium, h.URL, 5*time.Minute)
	w := p.w
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")))
	p.do("open Wallet Connect", click(link("Wallet Connect")), visible(heading("Wallet Connect")),
		visible(`//h2[normalize-space()='Connect from a link']`))
	p.do("paste the app's link and read it", typeIn("The app\u2019s link", nwa), click(button("Read what it asks")),
		visible(`//h3[normalize-space()='The app asks']`),
		visible(`//dd[normalize-space()='Stacker']`),
		visible(`//dd[normalize-space()='get_balance, make_invoice']`),
		visible(`//dd[normalize-space()='sign_message']`),
		visible(`//dd[starts-with(normalize-space(), '2,000 sat')]`),
		visible(`//dd[normalize-space()=`+jsString(relay.url)+`]`))
	checkLabels(p)
	var none []nwcConn
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &none, admin...)
	if len(none) != 0 {
		t.Fatalf("reading the link made a connection: %+v", none)
	}
	p.screenshot("nwa-ask-desktop")
	p.do("approve", click(button("Approve Stacker")),
		visible(`//p[@role='status'][starts-with(normalize-space(), 'Stacker connected')]`),
		visible(`//li[contains(@class,'connection')]//strong[normalize-space()='Stacker']`))

	var conns []struct {
		nwcConn
		WalletPubkey string `json:"wallet_pubkey"`
	}
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &conns, admin...)
	if len(conns) != 1 || conns[0].Pubkey != appPub || conns[0].Budget == nil || conns[0].Budget.MaxMsat != 2_000_000 ||
		conns[0].Budget.Renewal != "daily" || len(conns[0].Methods) != 2 {
		t.Fatalf("the connection made: %+v", conns)
	}
	waitInfoEvent(t, relay, conns[0].WalletPubkey)
	w.check(t)
}
