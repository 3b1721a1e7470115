package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// delivery is one request a webhook receiver got.
type delivery struct {
	signature string
	body      []byte
}

// receiver is a webhook endpoint run by the test on loopback: it answers
// 200 to every POST and hands the request over.
func receiver(t *testing.T) (*httptest.Server, <-chan delivery) {
	t.Helper()
	got := make(chan delivery, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		select {
		case got <- delivery{signature: r.Header.Get(webhooks.SignatureHeader), body: body}:
		default:
		}
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// hookEvent is a delivered event, as far as the test reads it.
type hookEvent struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	Data struct {
		ID        string `json:"id"`
		WebhookID string `json:"webhook_id"`
	} `json:"data"`
}

// receive waits for the next delivery of type typ (others are skipped:
// none is expected), checks its signature with secret as a receiver
// would (webhooks.Verify) and returns the event.
func receive(t *testing.T, got <-chan delivery, secret, typ string) hookEvent {
	t.Helper()
	deadline := time.After(stepTimeout)
	for {
		select {
		case d := <-got:
			if err := webhooks.Verify(secret, d.signature, d.body, time.Now(), 5*time.Minute); err != nil {
				t.Fatalf("a delivery's signature %q does not verify with the secret shown: %v\n%s", d.signature, err, d.body)
			}
			var ev hookEvent
			if err := json.Unmarshal(d.body, &ev); err != nil {
				t.Fatalf("a delivery's body: %v\n%s", err, d.body)
			}
			if ev.Type == typ {
				return ev
			}
			t.Logf("a %s delivery (event %d) while waiting for %s", ev.Type, ev.ID, typ)
		case <-deadline:
			t.Fatalf("no %s delivery came", typ)
		}
	}
}

// TestDashboardWebhooks drives the Webhooks view: the event types as the
// server lists them (the three of payments ticked), a refusal of the API
// shown as it words it, a webhook created to a receiver on loopback (its
// secret shown once; its description the XSS probe, shown as text), an
// invoice paid and its event delivered signed, the delivery listed, a test
// event sent and listed, the secret gone after leaving, the webhook
// deleted at 390 px; and the note in place of the view for a key without
// read:wallet.
func TestDashboardWebhooks(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	// A webhook failing for a second is disabled (a config says days).
	h := startHearthWith(t, serverOptions{disableWebhooksAfter: time.Second})
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	hooks, got := receiver(t)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)

	p := openDashboard(t, chromium, h.URL, 6*time.Minute)
	w := p.w
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))
	p.do("open Webhooks", click(link("Webhooks")), visible(heading("Webhooks")), visible(text("p", "No webhooks.")),
		// the server's event types, deposits among them, unticked
		visible(`//label[@for='event-onchain-deposit'][normalize-space()='onchain.deposit']`))
	if on := get(p, "the deposits' box", chromedp.Evaluate[bool](`document.getElementById('event-onchain-deposit').checked`)); on {
		t.Fatal("onchain.deposit is ticked for a new webhook: only the ledger's three are by default")
	}
	checkLabels(p)

	// A refusal of the API, shown as the API words it.
	p.do("a URL the API refuses", typeIn("Endpoint URL", "https://user:pw@hooks.example/x"), click(button("Create webhook")),
		visible(`//p[@role='alert'][normalize-space()='Invalid webhook URL: credentials in the URL are not allowed; authenticate the request with its signature']`))
	w.take(t, "/v1/me/webhooks answered 422")
	w.take(t, "status of 422")

	// Created: the secret shown once, the description as text.
	p.do("create a webhook", typeIn("Endpoint URL", hooks.URL+"/hearth"), typeIn("Description", xssProbe),
		click(button("Create webhook")), visible(`//input[@id='new-secret']`),
		visible(`//li[contains(@class,'webhook')]//strong[normalize-space()=`+fmt.Sprintf("%q", hooks.URL+"/hearth")+`]`),
		visible(text("span", xssProbe)), visible(text("span", "invoice.settled, payment.failed, payment.settled")),
		visible(`//li[contains(@class,'webhook')]//span[normalize-space()='Active']`),
		visible(`//code[contains(., 'Hearth-Signature: t=')]`), visible(button("Copy secret")))
	checkLabels(p)
	if n := get(p, "the form is ready again", chromedp.Evaluate[int](`[...document.querySelectorAll('input[name=events]')].filter((b) => b.checked).length`)); n != 3 {
		t.Fatalf("after Create webhook, %d event boxes are checked, want the 3 again", n)
	}
	if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
		t.Fatalf("the description %q became %d element(s)", xssProbe, n)
	}
	secret := get(p, "read the secret", chromedp.Value(chromedp.CSS(`#new-secret`)))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the secret shown is %q", secret)
	}
	p.do("copy the secret", click(button("Copy secret")), visible(button("Copied")))
	var listed []struct {
		ID, URL, Secret string
		Events          []string
	}
	h.call("GET", "/v1/me/webhooks", nil, http.StatusOK, &listed, admin...)
	if len(listed) != 1 || listed[0].URL != hooks.URL+"/hearth" || len(listed[0].Events) != 3 || listed[0].Secret != "" {
		t.Fatalf("the webhooks of the wallet: %+v", listed)
	}
	hookID := listed[0].ID

	// An invoice paid by an outside payer: its event is delivered, signed.
	var inv invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 21_000, "description": "hooked"}, http.StatusCreated, &inv, admin...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": inv.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	settled := receive(t, got, secret, "invoice.settled")
	if settled.Data.ID != inv.ID {
		t.Fatalf("the invoice.settled delivery is of invoice %q, want %q", settled.Data.ID, inv.ID)
	}
	waitAttempt(h, hookID, settled.ID, admin)
	attempt := func(id int64) string {
		return fmt.Sprintf(`//li[@data-event='%d'][.//span[normalize-space()='HTTP 200']][.//span[normalize-space()='attempt 1']]`, id)
	}
	row := func(id string) string { return fmt.Sprintf(`//li[@data-id=%q]`, id) }
	p.do("see the delivery", click(row(hookID)+button("Show deliveries")), visible(attempt(settled.ID)),
		visible(fmt.Sprintf(`//span[normalize-space()='Event %d']`, settled.ID)))
	p.do("refresh the deliveries", click(row(hookID)+button("Refresh deliveries")), visible(attempt(settled.ID)))

	// A test event: delivered signed, and listed by the view on its own.
	p.do("send a test event", click(row(hookID)+button("Send test event")), visible(`//p[@role='status'][starts-with(normalize-space(), 'Test event -')]`))
	test := receive(t, got, secret, webhooks.TestEvent)
	if test.ID >= 0 || test.Data.WebhookID != hookID {
		t.Fatalf("the test event: %+v", test)
	}
	p.do("see the test delivery", visible(attempt(test.ID)), visible(fmt.Sprintf(`//span[normalize-space()='Test event %d']`, test.ID)))
	checkLabels(p)
	p.screenshot("webhooks-desktop")

	// Another webhook, made through the API, to an endpoint that answers 500.
	var failing struct{ ID string }
	h.call("POST", "/v1/me/webhooks", map[string]any{"url": broken.URL, "events": []string{"invoice.settled"}},
		http.StatusCreated, &failing, admin...)

	// The secret is gone after leaving the page.
	p.do("leave and come back", click(link("Home")), visible(heading("Wallet")), click(link("Webhooks")),
		visible(row(hookID)+`//span[normalize-space()='Active']`), visible(row(failing.ID)+`//span[normalize-space()='Active']`))
	shown := get(p, "the secret is gone", chromedp.Evaluate[int](`document.querySelectorAll('#new-secret').length + (document.body.innerText.includes(`+jsString(secret)+`) ? 1 : 0)`))
	if shown != 0 {
		t.Fatal("the signing secret is still shown after leaving the page")
	}

	// Its deliveries fail until it is disabled; Refresh shows both.
	p.do("no deliveries yet", click(row(failing.ID)+button("Show deliveries")), visible(row(failing.ID)+text("p", "No deliveries yet.")))
	var second invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 1000}, http.StatusCreated, &second, admin...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": second.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	receive(t, got, secret, "invoice.settled")
	waitDisabled(h, failing.ID, admin)
	p.do("refresh the failing one", click(row(failing.ID)+button("Refresh deliveries")),
		visible(row(failing.ID)+`//span[normalize-space()='Disabled']`),
		visible(row(failing.ID)+`//span[@class='hook-reason'][starts-with(normalize-space(), 'Disabled after failing for 1s without a successful delivery; last error: HTTP 500')]`),
		visible(row(failing.ID)+`//li[@data-event][.//span[normalize-space()='HTTP 500']]`))
	if n := get(p, "no test for a disabled webhook", chromedp.Evaluate[int](`document.querySelectorAll('li[data-id="`+failing.ID+`"] .key-actions button').length`)); n != 2 {
		t.Fatalf("the disabled webhook offers %d buttons, want 2 (deliveries, delete): no test event", n)
	}

	// At 390 px: the deliveries, then the webhooks deleted after a confirm.
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	p.do("deliveries at 390 px", click(row(hookID)+button("Show deliveries")), visible(attempt(test.ID)), visible(attempt(settled.ID)))
	checkNoOverflow(p)
	p.screenshot("webhooks-390")
	p.do("ask to delete", click(row(hookID)+button("Delete webhook")), visible(row(hookID)+button("Delete this webhook now")))
	p.do("keep it", click(row(hookID)+button("Keep")), visible(row(hookID)+button("Delete webhook")))
	p.do("delete it", click(row(hookID)+button("Delete webhook")), click(row(hookID)+button("Delete this webhook now")),
		chromedp.WaitNotPresent(row(hookID)), visible(row(failing.ID)+`//span[normalize-space()='Disabled']`))
	p.do("delete the disabled one", click(row(failing.ID)+button("Delete webhook")), click(row(failing.ID)+button("Delete this webhook now")),
		visible(text("p", "No webhooks.")))
	h.call("GET", "/v1/me/webhooks", nil, http.StatusOK, &listed, admin...)
	if len(listed) != 0 {
		t.Fatalf("the webhooks after Delete: %+v", listed)
	}
	checkNoOverflow(p)

	// A key without read:wallet: the view is a note, not an error.
	var key struct{ Key string }
	h.call("POST", "/v1/me/api-keys", map[string]any{"name": "events only", "permissions": []string{"read:transaction"}},
		http.StatusCreated, &key, admin...)
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	p.do("sign in with the key", typeIn("API key", key.Key), click(button("Sign in with the key")), visible(heading("Wallet")))
	w.take(t, "/v1/me/balance answered 403") // Home's balance: the key may not read it
	w.take(t, "status of 403")
	p.do("open Webhooks with the key", click(link("Webhooks")), visible(heading("Webhooks")),
		visible(`//p[@role='status'][starts-with(normalize-space(), 'Webhooks are hidden: this key lacks the read:wallet permission.')]`))
	if n := get(p, "no form", chromedp.Evaluate[int](`document.querySelectorAll('main form, main [role=alert]').length`)); n != 0 {
		t.Fatalf("the view without read:wallet shows %d form(s) or error(s)", n)
	}
	// Home, gone now, read its balance again if a live event came while it
	// showed (a full test run once saw a second 403 of it).
	w.drop("/v1/me/balance")
	w.take(t, "/v1/me/webhooks answered 403")
	w.take(t, "status of 403")
	w.check(t)
}

// waitDisabled waits until webhook id is disabled.
func waitDisabled(h *hearth, id string, headers []string) {
	h.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var hook struct {
			Active bool `json:"active"`
		}
		h.call("GET", "/v1/me/webhooks/"+id, nil, http.StatusOK, &hook, headers...)
		if !hook.Active {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("webhook %s is still active", id)
		}
		<-tick.C
	}
}

// waitAttempt waits until webhook id lists an attempt of event.
func waitAttempt(h *hearth, id string, event int64, headers []string) {
	h.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var as []struct {
			EventID int64 `json:"event_id"`
		}
		h.call("GET", "/v1/me/webhooks/"+id+"/deliveries", nil, http.StatusOK, &as, headers...)
		for _, a := range as {
			if a.EventID == event {
				return
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("webhook %s lists no attempt of event %d: %+v", id, event, as)
		}
		<-tick.C
	}
}
