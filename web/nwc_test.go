package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// nwcConn is an NWC connection as the API shows it.
type nwcConn struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Pubkey  string   `json:"pubkey"`
	Methods []string `json:"methods"`
	Budget  *struct {
		MaxMsat  int64   `json:"max_msat"`
		Renewal  string  `json:"renewal"`
		UsedMsat int64   `json:"used_msat"`
		RenewsAt *string `json:"renews_at"`
	} `json:"budget"`
	ExpiresAt *time.Time `json:"expires_at"`
	URI       string     `json:"uri"`
}

// nwcURI is the form of a connection URI without a Lightning Address:
// the service's key, the relays, the app's secret.
var nwcURI = regexp.MustCompile(`^nostr\+walletconnect://([0-9a-f]{64})\?relay=[^&]+&secret=([0-9a-f]{64})$`)

// TestDashboardNWC drives the Wallet Connect view against a server whose
// [nwc] relays name a relay the test runs: a budget the view refuses as
// typed, an app connected with a method left out, a budget and an expiry;
// its URI shown once (its form, its relay, its secret the key of the
// connection listed, the QR code reading the same), the wallet's info
// event on that relay; after a reload the connection listed with its
// budget and no URI; revoked after a confirm. Then the API keys view: a
// key made with a budget, listed with its use, which moves once the key
// pays. Then a key without write:api_key: its attempt refused, plainly,
// and the form gone; and a server with NWC off: its refusal, plainly.
func TestDashboardNWC(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	relay := startZapRelay(t) // a khatru relay that keeps what it is sent
	h := startHearthWith(t, serverOptions{nwc: true, nwcRelays: relay.url})
	// The admin's wallet, funded by the embedded node; bob's, to be paid.
	admin := h.fundedAdmin(100_000_000)
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)

	p := openDashboard(t, chromium, h.URL, 8*time.Minute)
	w := p.w
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))

	p.do("open Wallet Connect", click(link("Wallet Connect")), visible(heading("Wallet Connect")),
		visible(text("p", "No apps connected.")), visible(`//legend[normalize-space()='Pay']`),
		visible(`//legend[normalize-space()='Receive']`), visible(`//legend[normalize-space()='Read']`),
		visible(`//legend[normalize-space()='Notifications']`))
	checkLabels(p)
	boxes := `[...document.querySelectorAll('input[name=methods]')]`
	if n := get(p, "every method is checked", chromedp.Evaluate[int](boxes+`.filter((b) => b.checked && !b.disabled).length`)); n != 9 {
		t.Fatalf("%d method boxes are checked at first, want the 9 (8 methods and notifications)", n)
	}
	if v := get(p, "a budget is offered", chromedp.Evaluate[string](labelled("Budget (sats)")+`.value + ' ' + `+labelled("Budget renews")+`.value`)); v != "100000 monthly" {
		t.Fatalf("a new connection is offered the budget %q, want 100,000 sats monthly", v)
	}

	// A budget the view refuses as typed: nothing is sent.
	p.do("a budget that is no number", typeIn("Name", "Damus"), typeIn("Budget (sats)", "5k"), click(button("Connect app")),
		visible(`//p[@role='alert'][starts-with(normalize-space(), 'Not a budget: 5k.')]`))

	// Connected: all but multi_pay_invoice, 5,000 sats a month, for 30 days.
	expiry := time.Now().AddDate(0, 0, 30)
	p.do("connect an app", click(`//input[@id='nwc-multi_pay_invoice']`), typeIn("Budget (sats)", "5000"),
		choose("Budget renews", "monthly"),
		chromedp.Evaluate[chromedp.Void](labelled("Expires on")+`.value = `+jsString(expiry.Format("2006-01-02"))),
		click(button("Connect app")),
		visible(`//h2[normalize-space()='Damus connected']`), visible(`//textarea[@id='nwc-uri']`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the connection URI']`), visible(button("Copy URI")),
		visible(`//strong[normalize-space()='Copy or scan it now: it is shown only once.']`))
	checkLabels(p)
	uri := get(p, "read the URI", chromedp.Value(chromedp.CSS(`#nwc-uri`)))
	m := nwcURI.FindStringSubmatch(uri)
	if m == nil {
		t.Fatalf("the URI shown is %q, want nostr+walletconnect://<64 hex>?relay=…&secret=<64 hex>", uri)
	}
	service, secret := m[1], m[2]
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Query()["relay"]; len(got) != 1 || got[0] != relay.url {
		t.Fatalf("the URI's relays are %q, want the server's [nwc] relays %q", got, relay.url)
	}
	if got := shownQR(p, "QR code of the connection URI"); got != uri {
		t.Fatalf("the QR code reads %q, want the URI %q", got, uri)
	}
	p.do("copy the URI", click(button("Copy URI")), visible(button("Copied")))
	p.screenshot("nwc-created-desktop")
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		visible(`//textarea[@id='nwc-uri']`))
	checkNoOverflow(p)
	p.screenshot("nwc-created-390")
	p.do("widen the window", chromedp.EmulateViewport(1280, 900))

	var conns []nwcConn
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &conns, admin...)
	if len(conns) != 1 {
		t.Fatalf("the connections of the wallet: %+v", conns)
	}
	c := conns[0]
	appKey, err := gonostr.GetPublicKey(secret)
	if err != nil || appKey != c.Pubkey {
		t.Fatalf("the URI's secret is the key of %q (%v), want the connection's %q", appKey, err, c.Pubkey)
	}
	if c.Name != "Damus" || c.URI != "" ||
		!sameSet(c.Methods, "pay_invoice", "make_invoice", "lookup_invoice", "list_transactions", "get_balance", "get_info", "get_budget", "notifications") {
		t.Fatalf("the connection made: %+v", c)
	}
	if c.Budget == nil || c.Budget.MaxMsat != 5_000_000 || c.Budget.Renewal != "monthly" || c.Budget.UsedMsat != 0 || c.Budget.RenewsAt == nil {
		t.Fatalf("the connection's budget: %+v", c.Budget)
	}
	// The end of the day picked, in the browser's zone (the test's).
	if c.ExpiresAt == nil || c.ExpiresAt.Local().Format("2006-01-02 15:04") != expiry.Format("2006-01-02")+" 23:59" {
		t.Fatalf("the connection expires at %v, want the end of %s", c.ExpiresAt, expiry.Format("2006-01-02"))
	}
	waitInfoEvent(t, relay, service)

	// Listed, with its methods, budget and dates; the form is ready again.
	row := fmt.Sprintf(`//li[@data-id=%q]`, c.ID)
	p.do("see it listed", visible(row+text("strong", "Damus")),
		visible(row+text("span", strings.Join(c.Methods, ", "))),
		visible(row+`//span[starts-with(normalize-space(), 'Budget: 0 sats of 5,000 sats used this month · renews ')]`),
		visible(row+`//progress[@aria-label='Budget used: 0 sats of 5,000 sats']`),
		visible(row+text("span", "Never used")),
		visible(row+`//span[starts-with(normalize-space(), 'Created ')][contains(., ' · expires ')]`))
	if n := get(p, "the form is ready again", chromedp.Evaluate[int](boxes+`.filter((b) => b.checked).length`)); n != 9 {
		t.Fatalf("after Connect app, %d method boxes are checked, want the 9 again", n)
	}
	if v := get(p, "the budget is offered again", chromedp.Evaluate[string](labelled("Budget (sats)")+`.value`)); v != "100000" {
		t.Fatalf("after Connect app, the budget field holds %q, want 100000 again", v)
	}

	// After a reload: listed, the URI gone for good.
	p.do("reload", chromedp.Reload(), visible(heading("Wallet Connect")), visible(row+text("strong", "Damus")),
		visible(row+`//span[starts-with(normalize-space(), 'Budget: 0 sats of 5,000 sats used this month')]`))
	shown := get(p, "the URI is gone", chromedp.Evaluate[int](`document.querySelectorAll('#nwc-uri, svg.qr').length + (document.body.innerText.includes(`+
		jsString(secret)+`) ? 1 : 0)`))
	if shown != 0 {
		t.Fatal("the connection URI is still shown after a reload")
	}
	p.screenshot("nwc-desktop")

	// Changed in place: renamed, make_invoice taken away, a smaller daily
	// budget, no end; its payments, none yet.
	edit := row + `//form[@aria-label='Edit Damus']`
	p.do("edit it", click(row+button("Edit")), visible(edit),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('edit-`+c.ID+`-name').value = 'Damus Pro'`),
		click(edit+`//input[@value='make_invoice']`),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('edit-`+c.ID+`-b-budget').value = '3000'`),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('edit-`+c.ID+`-b-renewal').value = 'daily'`),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('edit-`+c.ID+`-expires').value = ''`))
	checkLabels(p)
	p.screenshot("nwc-edit-desktop")
	p.do("save it", click(edit+button("Save Damus")), chromedp.WaitNotPresent(edit),
		visible(row+text("strong", "Damus Pro")),
		visible(row+`//span[starts-with(normalize-space(), 'Budget: 0 sats of 3,000 sats used today · renews ')]`))
	var saved nwcConn
	h.call("GET", "/v1/me/nwc/connections/"+c.ID, nil, http.StatusOK, &saved, admin...)
	if saved.Name != "Damus Pro" || slices.Contains(saved.Methods, "make_invoice") || len(saved.Methods) != 7 || saved.Budget == nil ||
		saved.Budget.MaxMsat != 3_000_000 || saved.Budget.Renewal != "daily" || saved.ExpiresAt != nil {
		t.Fatalf("the connection after Save: %+v budget %+v", saved, saved.Budget)
	}
	p.do("its payments", click(row+button("Payments")), visible(row+text("p", "No payments made by Damus Pro yet.")),
		click(row+button("Payments")), chromedp.WaitNotPresent(row+text("p", "No payments made by Damus Pro yet.")))

	// Revoked after a confirm.
	p.do("ask to revoke", click(row+button("Revoke")), visible(row+button("Revoke Damus Pro now")))
	p.do("keep it", click(row+button("Keep")), visible(row+button("Revoke")), visible(row+button("Edit")))
	p.do("revoke it", click(row+button("Revoke")), click(row+button("Revoke Damus Pro now")),
		chromedp.WaitNotPresent(row), visible(text("p", "No apps connected.")))
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &conns, admin...)
	if len(conns) != 0 {
		t.Fatalf("the connections after Revoke: %+v", conns)
	}
	h.call("GET", "/v1/me/nwc/connections/"+c.ID, nil, http.StatusNotFound, nil, admin...)

	// The admin gives an app a wallet of its own: listed with its wallet.
	p.do("a sub-wallet", typeIn("Name", "Game"), click(`//input[@id='nwc-isolated']`), click(button("Connect app")),
		visible(`//h2[normalize-space()='Game connected']`), click(button("Done")))
	var all []struct {
		nwcConn
		WalletID string `json:"wallet_id"`
	}
	var mine struct{ ID string }
	h.call("GET", "/v1/nwc/connections", nil, http.StatusOK, &all, admin...)
	h.call("GET", "/v1/me", nil, http.StatusOK, &mine, admin...)
	if len(all) != 1 || all[0].Name != "Game" || all[0].WalletID == "" || all[0].WalletID == mine.ID {
		t.Fatalf("the sub-wallet's connection %+v (the admin's wallet %s)", all, mine.ID)
	}
	game := fmt.Sprintf(`//li[@data-id=%q]`, all[0].ID)
	p.do("see it on its wallet", visible(game+text("span", "On wallet "+all[0].WalletID)))
	p.do("revoke it", click(game+button("Revoke")), click(game+button("Revoke Game now")),
		chromedp.WaitNotPresent(game), visible(text("p", "No apps connected.")))

	// API keys: one made with a budget, its use shown and moving.
	p.do("open API keys", click(link("API keys")), visible(heading("API keys")), visible(text("p", "No API keys.")),
		visible(`//legend[normalize-space()='Budget']`))
	checkLabels(p)
	p.do("create a key with a budget", typeIn("Name", "shop"), click(`//input[@id='scope-write-transaction']`),
		typeIn("Budget (sats)", "5000"), choose("Budget renews", "daily"), click(button("Create API key")),
		visible(`//input[@id='new-key']`))
	key := get(p, "read the key", chromedp.Value(chromedp.CSS(`#new-key`)))
	var keys []struct {
		ID     string `json:"id"`
		Budget *struct {
			MaxMsat  int64  `json:"max_msat"`
			Renewal  string `json:"renewal"`
			UsedMsat int64  `json:"used_msat"`
		} `json:"budget"`
	}
	h.call("GET", "/v1/me/api-keys", nil, http.StatusOK, &keys, admin...)
	if len(keys) != 1 || keys[0].Budget == nil || keys[0].Budget.MaxMsat != 5_000_000 || keys[0].Budget.Renewal != "daily" {
		t.Fatalf("the keys after Create API key: %+v", keys)
	}
	keyRow := fmt.Sprintf(`//li[@data-id=%q]`, keys[0].ID)
	p.do("see its budget", visible(keyRow+text("strong", "shop")),
		visible(keyRow+`//span[starts-with(normalize-space(), 'Budget: 0 sats of 5,000 sats used today · renews ')]`))
	if v := get(p, "the budget field is empty again", chromedp.Value(chromedp.CSS(`#key-budget`))); v != "" {
		t.Fatalf("after Create API key, the budget field holds %q", v)
	}
	var bobInv invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1_000_000, "description": "to bob"}, http.StatusCreated, &bobInv, bob...)
	h.call("POST", "/v1/me/payments", map[string]string{"input": bobInv.LnInvoice.Bolt11}, http.StatusCreated, nil,
		append(apiKey(key), idem("budgeted-1")...)...)
	h.waitBalance(1_000_000, bob...)
	p.do("see the budget used", click(link("Home")), visible(heading("Wallet")), click(link("API keys")),
		visible(keyRow+`//span[starts-with(normalize-space(), 'Budget: 1,000 sats of 5,000 sats used today · renews ')]`),
		visible(keyRow+`//progress[@aria-label='Budget used: 1,000 sats of 5,000 sats']`))
	p.screenshot("keys-budget-desktop")
	p.do("the key's payments", click(keyRow+button("Payments")),
		visible(keyRow+`//section[@aria-label='Payments of shop']//a[normalize-space()='1,000 sats']`),
		visible(keyRow+`//section[@aria-label='Payments of shop']//span[normalize-space()='Settled']`))

	// A key without write:api_key: it sees the view, its attempt is
	// refused plainly and the form goes.
	var reader struct{ Key string }
	h.call("POST", "/v1/me/api-keys", map[string]any{"name": "reader", "permissions": []string{"read:wallet", "read:transaction", "read:api_key"}},
		http.StatusCreated, &reader, admin...)
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	p.do("sign in with the key", typeIn("API key", reader.Key), click(button("Sign in with the key")), visible(heading("Wallet")))
	p.do("open Wallet Connect with the key", click(link("Wallet Connect")), visible(heading("Wallet Connect")),
		visible(text("p", "No apps connected.")))
	p.do("try to connect", typeIn("Name", "nope"), click(button("Connect app")),
		visible(`//p[@role='status'][starts-with(normalize-space(), 'This key lacks the write:api_key permission')]`))
	w.take(t, "/v1/me/nwc/connections answered 403")
	w.take(t, "status of 403")
	if n := get(p, "no form", chromedp.Evaluate[int](`document.querySelectorAll('main form, main [role=alert], #nwc-uri').length`)); n != 0 {
		t.Fatalf("after the refusal, the view shows %d form(s), error(s) or URI", n)
	}
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &conns, admin...)
	if len(conns) != 0 {
		t.Fatalf("a key without write:api_key connected an app: %+v", conns)
	}

	// A server with NWC off ([nwc] has no relays): its refusal, plainly.
	off := startHearthWith(t, serverOptions{nwc: true})
	off.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	off.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, nil)
	p.do("sign out of the first", click(button("Sign out")), visible(heading("Sign in")))
	w.mu.Lock()
	w.origin = off.URL
	w.mu.Unlock()
	p.do("sign in where NWC is off", chromedp.Navigate(off.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")))
	p.do("try to connect where NWC is off", click(link("Wallet Connect")), visible(text("p", "No apps connected.")),
		typeIn("Name", "Damus"), click(button("Connect app")),
		visible(`//p[@role='status'][starts-with(normalize-space(), 'Nostr Wallet Connect is off on this server')]`))
	w.take(t, "/v1/me/nwc/connections answered 422")
	w.take(t, "status of 422")
	if n := get(p, "no form where NWC is off", chromedp.Evaluate[int](`document.querySelectorAll('main form').length`)); n != 0 {
		t.Fatalf("with NWC off, the view still shows %d form(s)", n)
	}
	w.check(t)
}

// waitInfoEvent waits until the relay holds the wallet service's info
// event (kind 13194) signed by service: the URI names a relay where the
// wallet is.
func waitInfoEvent(t *testing.T, r *zapRelay, service string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		r.mu.Lock()
		found := false
		for _, ev := range r.events {
			if ev.Kind == 13194 && ev.PubKey == service {
				found = true
			}
		}
		r.mu.Unlock()
		if found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay holds no info event of the wallet service %s", service)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
