package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser test drives the dashboard in a real headless Chromium, as a
// person would, against a real server. Chromium is found as
// $HEARTH_CHROMIUM, else on PATH (scripts/chromium.sh installs it); without
// one the test is skipped, unless CI is set, where that is a failure.
// Screenshots go to $HEARTH_WEB_ARTIFACTS, else to a temporary folder.

const (
	chromiumEnv  = "HEARTH_CHROMIUM"
	artifactsEnv = "HEARTH_WEB_ARTIFACTS"
	// stepTimeout bounds each step: generous, for a busy machine.
	stepTimeout = 90 * time.Second
	xssProbe    = `<img src=x onerror=alert(1)>`
	password    = "correct horse battery staple"
)

func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	artifacts := artifactsDir(t)
	h := startHearth(t, false)

	ctx := startBrowser(t, chromium, 10*time.Minute, chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-US"))

	w := &watcher{origin: h.URL}
	if err := w.listen(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifacts, w: w}
	downloads := t.TempDir()
	p.do("start the browser",
		call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}),
		call(runtime.Enable, cdp.Empty{}), call(page.Enable, page.EnableParams{}))
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads}); err != nil {
		t.Fatal(err)
	}

	// First run: welcome, then sign-up.
	p.do("open the dashboard", chromedp.Navigate(h.URL+"/"), visible(heading("Welcome to Hearth")))
	p.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))

	// The watcher catches what it must: a console error, an inline script
	// (refused by the Content-Security-Policy, and so never run), a
	// dialog.
	p.do("probe the console", chromedp.Evaluate[chromedp.Void](`console.error('watcher probe')`))
	w.take(t, "watcher probe")
	p.do("probe the CSP", chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.createElement('script');
		s.textContent = 'window.inlineRan = true';
		document.body.append(s);
	})()`))
	w.take(t, "Content Security Policy")
	if ran := get(p, "did it run", chromedp.Evaluate[bool](`window.inlineRan === true`)); ran {
		t.Fatal("an inline script ran despite the Content-Security-Policy")
	}
	p.do("probe dialogs", chromedp.Evaluate[chromedp.Void](`setTimeout(() => alert('dialog probe'), 0)`))
	w.take(t, "dialog probe")
	checkLabels(p)
	p.do("welcome", click(button("Get started")), visible(heading("Create the admin password")))
	checkLabels(p)
	p.do("sign up",
		typeIn("Password", password), typeIn("Confirm password", password), click(button("Sign up")),
		visible(heading("Wallet")), balanceIs("0 sats"), visible(`//span[@role='status'][normalize-space()='Live']`))

	// Out of band, through the API: a second wallet, bob's, funded by the
	// embedded node as an outside payer.
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-in", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 100_000_000}, http.StatusCreated, &fund, bob...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(100_000_000, bob...)

	// Receive: an invoice paid by bob. The screenshots of the README show
	// this run's data, so it is a person's (the XSS probe comes last).
	p.do("open Receive", click(link("Receive")), visible(heading("Receive")))
	p.do("create an invoice",
		typeIn("Amount (sats)", "2500"), typeIn("Description", "Coffee for Ana"), click(button("Create invoice")),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the invoice']`),
		visible(text("p", "Coffee for Ana")),
		visible(`//section[@data-status='Pending']`))
	checkLabels(p)
	bolt11 := get(p, "read the invoice", chromedp.Value(chromedp.CSS(`#bolt11`)))
	if !strings.HasPrefix(bolt11, "lnbcrt") {
		t.Fatalf("the invoice shown is %q", bolt11)
	}
	if got := shownQR(p, "QR code of the invoice"); got != strings.ToUpper(bolt11) {
		t.Fatalf("the QR code reads %q, want the invoice %q upper-cased", got, bolt11)
	}
	p.screenshot("receive-desktop")
	h.call("POST", "/v1/me/payments", map[string]string{"input": bolt11}, http.StatusCreated, nil, append(bob, idem("pay-1")...)...)
	p.do("the invoice turns paid", visible(`//section[@data-status='Settled']`), visible(text("span", "Paid")))

	// Home: the balance, and a payment arriving while it is shown.
	p.do("go home", click(link("Home")), balanceIs("2,500 sats"), visible(text("span", "Coffee for Ana")))
	var second invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000_000, "description": "Lunch with Bob"}, http.StatusCreated, &second, admin...)
	h.call("POST", "/v1/me/payments", map[string]string{"input": second.LnInvoice.Bolt11}, http.StatusCreated, nil, append(bob, idem("pay-2")...)...)
	p.do("the balance moves live", balanceIs("3,500 sats"), visible(text("span", "Lunch with Bob")))

	// The stream drops; a payment comes while the browser is offline; the
	// dashboard resumes after the last event it saw and misses nothing.
	w.setExpectFailures(true)
	p.do("cut the event stream", call(network.SetBlockedURLs, network.SetBlockedURLsParams{
		URLPatterns: []*network.BlockPattern{{URLPattern: h.URL + "/v1/me/events", Block: true}}}))
	h.dropConnections()
	p.do("the dashboard sees it", visible(`//span[@role='status'][normalize-space()='Reconnecting…']`))
	var third invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 500_000, "description": "Concert tickets"}, http.StatusCreated, &third, admin...)
	h.call("POST", "/v1/me/payments", map[string]string{"input": third.LnInvoice.Bolt11}, http.StatusCreated, nil, append(bob, idem("pay-3")...)...)
	p.do("back online", call(network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{}}),
		visible(`//span[@role='status'][normalize-space()='Live']`), balanceIs("4,000 sats"), visible(text("span", "Concert tickets")))
	w.setExpectFailures(false)
	w.mu.Lock()
	resumes := append([]string(nil), w.resumes...)
	w.mu.Unlock()
	if len(resumes) < 2 || resumes[0] != "" || resumes[len(resumes)-1] == "" {
		t.Fatalf("the event stream's Last-Event-ID headers: %q; want none at first, then the last id seen", resumes)
	}
	// The README shows this screen: read afresh, once the consumers have
	// caught up with the payments (the card reads again every 20 s).
	p.do("home, read afresh", click(link("Activity")), visible(heading("Activity")), click(link("Home")), balanceIs("4,000 sats"),
		visible(`//ul[contains(@class,'consumers')][not(li[contains(., ' behind')])]`))
	p.screenshot("home-desktop")

	// Send to bob's invoice through the confirm step.
	var bobInv invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000_000, "description": "for bob"}, http.StatusCreated, &bobInv, bob...)
	p.do("open Send", click(link("Send")), visible(heading("Send")))
	p.do("review the payment",
		typeIn("Pay to", bobInv.LnInvoice.Bolt11), click(button("Review payment")),
		visible(`//dd[@id='preview-amount'][normalize-space()='1,000 sats']`),
		visible(`//dd[@id='preview-description'][normalize-space()='for bob']`),
		visible(`//dd[@id='preview-fee'][contains(., 'None')]`))
	checkLabels(p)
	p.screenshot("send-preview-desktop")
	p.do("send", click(button("Send")), visible(`//div[@role='status']//span[normalize-space()='Settled']`))
	h.waitBalance(100_000_000-2_500_000-1_000_000-500_000+1_000_000, bob...)

	// More than the balance: the API's refusal is shown, nothing is paid.
	var big invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 50_000_000}, http.StatusCreated, &big, bob...)
	p.do("send too much", click(button("Send another")), typeIn("Pay to", big.LnInvoice.Bolt11), click(button("Review payment")),
		click(button("Send")), visible(`//p[@role='alert'][contains(., 'Insufficient funds')]`))
	w.take(t, "answered 422") // expected: the refusal, and the browser's line about it
	w.take(t, "status of 422")

	// Activity: both ways, filters, a detail view, the server's CSVs.
	p.do("open Activity", click(link("Activity")), visible(heading("Activity")),
		visible(text("span", "for bob")), visible(text("span", "Coffee for Ana")))
	checkLabels(p)
	p.do("filter payments", choose("Show", "payments"), visible(`//p[normalize-space()='1 record']`))
	p.do("filter by status", choose("Status", "Failed"), visible(`//p[normalize-space()='0 records']`))
	p.do("clear the filters", choose("Show", ""), choose("Status", ""), visible(`//p[normalize-space()='4 records']`))
	p.do("export payments", click(button("Export payments (CSV)")))
	csv := waitDownload(t, downloads, "hearth-payments-")
	for _, want := range []string{"id,created_at,payment_time,status,ledger,direction", ",Sent,", "for bob"} {
		if !strings.Contains(csv, want) {
			t.Errorf("the payments' CSV lacks %q:\n%s", want, csv)
		}
	}
	p.do("export invoices", click(button("Export invoices (CSV)")))
	csv = waitDownload(t, downloads, "hearth-invoices-")
	for _, want := range []string{"id,created_at,payment_time,expires_at", ",Received,", "Coffee for Ana", "Lunch with Bob"} {
		if !strings.Contains(csv, want) || strings.Contains(csv, "for bob") {
			t.Errorf("the invoices' CSV lacks %q, or holds a payment:\n%s", want, csv)
		}
	}
	p.screenshot("activity-desktop")
	p.do("open the payment", click(`//a[.//span[normalize-space()='for bob']]`), visible(heading("Payment")),
		visible(`//dd/span[normalize-space()='Settled']`))

	// API keys: created, shown once, revoked.
	p.screenshot("payment-desktop")
	p.do("open API keys", click(link("API keys")), visible(heading("API keys")), visible(text("p", "No API keys.")))
	p.do("create a key", typeIn("Name", "till"), click(button("Create API key")), visible(`//input[@id='new-key']`),
		visible(text("strong", "till")))
	key := get(p, "read the key", chromedp.Value(chromedp.CSS(`#new-key`)))
	if !strings.HasPrefix(key, "hk_") {
		t.Fatalf("the key shown is %q", key)
	}
	if code := h.status("GET", "/v1/me/balance", apiKey(key)...); code != http.StatusOK {
		t.Fatalf("the new key: GET /v1/me/balance = %d", code)
	}
	checkLabels(p)
	p.screenshot("api-keys-desktop")
	p.do("leave and come back", click(link("Home")), visible(heading("Wallet")), click(link("API keys")),
		visible(text("strong", "till")))
	shown := get(p, "the key is gone", chromedp.Evaluate[int](`document.querySelectorAll('#new-key').length + (document.body.innerText.includes(`+jsString(key)+`) ? 1 : 0)`))
	if shown != 0 {
		t.Fatal("the key is still shown after leaving the page")
	}
	p.do("revoke it", click(button("Revoke")), click(button("Revoke till now")), visible(text("p", "No API keys.")))
	if code := h.status("GET", "/v1/me/balance", apiKey(key)...); code != http.StatusUnauthorized {
		t.Fatalf("the revoked key: GET /v1/me/balance = %d, want 401", code)
	}

	// A Lightning Address registered (lnaddress_test.go drives the rest).
	p.do("open Lightning Address", click(link("Lightning Address")), visible(heading("Lightning Address")))
	noAddress(t, w)
	p.do("register an address", typeIn("Username", "satoshi"), click(button("Register address")),
		visible(`//strong[@id='ln-address'][normalize-space()='satoshi@`+testDomain+`']`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the Lightning Address']`))
	checkLabels(p)
	if url := addressOfQR(t, shownQR(p, "QR code of the Lightning Address")); url != "https://"+testDomain+"/.well-known/lnurlp/satoshi" {
		t.Fatalf("the QR code of the address is the LNURL of %q", url)
	}

	// Admin: the node and the wallets, 50 at a time, newest first: bob's
	// is on the second page once 50 more are made.
	for i := range 50 {
		h.call("POST", "/v1/wallets", map[string]string{"user_id": fmt.Sprintf("user-%02d", i)}, http.StatusCreated, nil, admin...)
	}
	p.do("open Admin", click(link("Admin")), visible(heading("Admin")), visible(`//dd[normalize-space()='embedded']`),
		visible(`//td[normalize-space()='user-49']`))
	if n := get(p, "count the wallets shown", chromedp.Evaluate[int](`document.querySelectorAll('[aria-labelledby="wallets-h"] tbody tr').length`)); n != 50 {
		t.Fatalf("the Admin view shows %d wallets, want its first page of 50", n)
	}
	p.do("show more wallets", click(button("Show more wallets")), visible(`//td[normalize-space()='bob']`))
	p.do("create carol's wallet", typeIn("User id", "carol"), click(button("Create wallet")), visible(`//td[normalize-space()='carol']`))
	p.do("make carol a key", typeIn("Key owner (user id)", "carol"), typeIn("Key name", "carol's phone"),
		click(button("Create key for user")), visible(`//h2[normalize-space()="API key carol's phone created for carol"]`))
	carolKey := get(p, "read carol's key", chromedp.Value(chromedp.CSS(`#new-key`)))
	checkLabels(p)
	p.screenshot("admin-desktop")
	// Plugins (plugins_test.go drives a WebAssembly plugin's life): a built-in's logs.
	p.do("open Plugins", click(link("Plugins")), visible(heading("Plugins")),
		visible(`//li[@data-name='node-embedded']//span[normalize-space()='enabled']`),
		// A built-in shows what it reaches beyond a wallet.
		visible(`//li[@data-name='node-embedded']//dd/span[contains(@class,'capabilities')][normalize-space()='node:backend']`),
		visible(`//li[@data-name='node-embedded']//dt[normalize-space()='Health']/following-sibling::dd[1][normalize-space()='Operational']`))
	p.do("read a plugin's logs", click(button("Logs of node-embedded")), visible(text("p", "No log lines.")))
	if n := get(p, "a built-in has no switch", chromedp.Evaluate[int](`document.querySelectorAll('li[data-name="node-embedded"] > .actions button').length`)); n != 1 {
		t.Fatalf("the built-in node-embedded has %d buttons, want only its logs", n)
	}
	checkLabels(p)

	// Sign out, sign in, change the password.
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	stored := get(p, "the token is gone", chromedp.Evaluate[string](`JSON.stringify(Object.keys(sessionStorage))`))
	if stored != "[]" {
		t.Fatalf("sessionStorage after sign-out: %s", stored)
	}

	// Carol, with the key the admin made her: her wallet, and no Admin.
	p.do("sign in with a key", typeIn("API key", carolKey), click(button("Sign in with the key")),
		visible(heading("Wallet")), balanceIs("0 sats"), visible(`//span[@class='user'][normalize-space()='carol']`),
		visible(`//span[@role='status'][normalize-space()='Live']`))
	if n := get(p, "look for Admin", chromedp.Evaluate[int](`[...document.querySelectorAll('nav a')].filter((a) => ['Admin', 'Plugins'].includes(a.textContent)).length`)); n != 0 {
		t.Fatal("Admin or Plugins is offered to a user who is not the admin")
	}
	p.do("no admin page", chromedp.Navigate(h.URL+"/#/admin"), visible(heading("Not found")))
	p.do("no plugins page", click(link("Home")), visible(heading("Wallet")),
		chromedp.Navigate(h.URL+"/#/plugins"), visible(heading("Not found")))
	p.do("carol's settings", click(link("Settings")), visible(text("p", "Only the admin has a password here.")))
	p.do("carol signs out", click(button("Sign out")), visible(heading("Sign in")))
	p.do("sign in", typeIn("Password", password), click(button("Sign in")), visible(heading("Wallet")), balanceIs("3,000 sats"))
	const newPassword = "a longer passphrase for the test"
	p.do("change the password", click(link("Settings")), visible(heading("Settings")),
		typeIn("Current password", password), typeIn("New password", newPassword), typeIn("Confirm new password", newPassword),
		click(button("Change password")), visible(text("p", "Password changed. Other sessions are signed out.")))
	checkLabels(p)
	h.call("POST", "/v1/auth/sign-in", map[string]string{"password": password}, http.StatusUnauthorized, nil)

	same := get(p, "no reload happened", chromedp.Evaluate[bool](`window.sameDocument === true`))
	if !same {
		t.Error("the page was reloaded during the run")
	}

	// At 390 px: the home and receive views, nothing wider than the screen.
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	p.do("home at 390 px", click(link("Home")), balanceIs("3,000 sats"))
	checkNoOverflow(p)
	p.screenshot("home-390")
	p.do("receive at 390 px", click(link("Receive")), typeIn("Amount (sats)", "21000"), typeIn("Description", "Coffee beans"),
		click(button("Create invoice")), visible(`//*[local-name()='svg'][@aria-label='QR code of the invoice']`))
	checkNoOverflow(p)
	if small := get(p, "read the invoice", chromedp.Value(chromedp.CSS(`#bolt11`))); shownQR(p, "QR code of the invoice") != strings.ToUpper(small) {
		t.Fatal("the QR code at 390 px does not read as its invoice")
	}
	p.screenshot("receive-390")

	// An invoice described as markup reads as text: on Receive, Home and
	// Activity, no element is made of it.
	noElement := func(where string) {
		t.Helper()
		if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
			t.Fatalf("%s: the description %q became %d element(s)", where, xssProbe, n)
		}
	}
	p.do("describe an invoice as markup", typeIn("Description", xssProbe), click(button("Create invoice")),
		visible(text("p", xssProbe)))
	noElement("Receive")
	p.do("home shows it as text", click(link("Home")), visible(text("span", xssProbe)))
	noElement("Home")
	p.do("activity shows it as text", click(link("Activity")), visible(heading("Activity")), visible(text("span", xssProbe)))
	noElement("Activity")

	w.check(t)
	w.mu.Lock()
	n := len(w.requests)
	w.mu.Unlock()
	if n == 0 {
		t.Fatal("the watcher saw no request: it is not listening")
	}
	t.Logf("%d requests, all to %s", n, h.URL)
}
