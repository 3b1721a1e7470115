package web_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"github.com/hearthwallet/hearth/plugins/nostr"
)

// startHearthNostr starts a server as startHearth does, with the built-in
// Nostr plugin joined to lnurl as `hearth serve` joins them
// (plugins.allow_private_hosts on, so that it publishes to a relay the test
// runs on loopback; short retries).
func startHearthNostr(t *testing.T) *hearth {
	t.Helper()
	return startHearthWith(t, serverOptions{nostr: true})
}

// zapRelay is a khatru relay on loopback that keeps the events it is sent.
type zapRelay struct {
	url    string
	mu     sync.Mutex
	events map[string]*gonostr.Event
}

func startZapRelay(t *testing.T) *zapRelay {
	t.Helper()
	r := &zapRelay{events: map[string]*gonostr.Event{}}
	k := khatru.NewRelay()
	k.StoreEvent = append(k.StoreEvent, func(_ context.Context, ev *gonostr.Event) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.events[ev.ID]; ok {
			return eventstore.ErrDupEvent
		}
		r.events[ev.ID] = ev
		return nil
	})
	srv := httptest.NewServer(k)
	t.Cleanup(srv.Close)
	r.url = "ws" + srv.URL[len("http"):]
	return r
}

// receipt is the zap receipt (kind 9735) the relay holds for invoice
// bolt11, or nil.
func (r *zapRelay) receipt(bolt11 string) *gonostr.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.events {
		if ev.Kind == nostr.KindZapReceipt {
			if tag := ev.Tags.Find("bolt11"); len(tag) > 1 && tag[1] == bolt11 {
				return ev
			}
		}
	}
	return nil
}

func TestDashboardZaps(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearthNostr(t)
	relay := startZapRelay(t)
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)

	// Alice (the admin's wallet) takes zaps at alice@hearth.test.
	aliceSK := gonostr.GeneratePrivateKey()
	alicePK, _ := gonostr.GetPublicKey(aliceSK)
	h.call("POST", "/v1/me/lightning-address", map[string]any{"username": "alice", "allows_nostr": true, "nostr_pubkey": alicePK},
		http.StatusCreated, nil, admin...)

	// Bob's wallet, funded, pays the zap invoice.
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 100_000_000}, http.StatusCreated, &fund, bob...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(100_000_000, bob...)

	p := openDashboard(t, chromium, h.URL, 8*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))
	p.do("open Zaps", click(link("Zaps")), visible(heading("Zaps")), visible(button("Refresh zaps")),
		visible(`//p[starts-with(normalize-space(), 'No zaps yet.')]`))
	checkLabels(p)

	// A Nostr client's zap: a signed kind 9734 request naming the relay,
	// the probe as its comment, sent to the callback; Bob pays it.
	senderSK := gonostr.GeneratePrivateKey()
	senderPK, _ := gonostr.GetPublicKey(senderSK)
	// A second relay that is down: its receipt waits, retried.
	dl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "ws://" + dl.Addr().String()
	dl.Close()
	noteID := "5c83da77af1dec6d7289834998ad7aafbd9e2191396d75ec3cc27f5a77226f36"
	const amount = 21_000
	req := gonostr.Event{Kind: nostr.KindZapRequest, Content: xssProbe, CreatedAt: gonostr.Now(), Tags: gonostr.Tags{
		{"relays", relay.url, down}, {"amount", strconv.Itoa(amount)}, {"p", alicePK}, {"e", noteID}}}
	if err := req.Sign(senderSK); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(req)
	var inv struct {
		PR string `json:"pr"`
	}
	h.call("GET", "/lnurlp/alice/callback?"+url.Values{"amount": {strconv.Itoa(amount)}, "nostr": {string(raw)}}.Encode(),
		nil, http.StatusOK, &inv)
	h.call("POST", "/v1/me/payments", map[string]string{"input": inv.PR}, http.StatusCreated, nil, append(bob, idem("zap-1")...)...)

	zap := `//li[contains(@class,'zap')]`
	// The screen reads the zaps again on the invoice's invoice.settled
	// event, and follows the receipt until the relay took it.
	p.do("the relay that is down is pending", visible(zap+`//li[@data-state='pending'][.//span[normalize-space()=`+xpathString(down)+`]]//span[normalize-space()='Pending']`),
		visible(zap+`//li[@data-state='pending']//p[starts-with(normalize-space(), 'Last error: ')]`),
		visible(zap+`//li[@data-state='pending']//p[contains(normalize-space(), ' · next ')]`))
	npub, err := nip19.EncodePublicKey(senderPK)
	if err != nil {
		t.Fatal(err)
	}
	p.do("the zap shows, its receipt published", visible(zap+`//strong[normalize-space()='21 sats']`),
		visible(zap+`//p[contains(@class,'zap-comment')][normalize-space()=`+xpathString(xssProbe)+`]`),
		visible(zap+`//span[contains(@class,'zap-sender')][@title='`+npub+`']`),
		visible(zap+`//span[starts-with(normalize-space(), 'Note note1')]`),
		visible(zap+`//span[starts-with(normalize-space(), 'Paid ')]`),
		visible(zap+`//li[@data-state='published'][.//span[normalize-space()=`+xpathString(relay.url)+`]]//span[normalize-space()='Published']`))
	if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
		t.Fatalf("the probe %q became %d element(s)", xssProbe, n)
	}
	checkLabels(p)
	rec := relay.receipt(inv.PR)
	if rec == nil {
		t.Fatal("the relay holds no zap receipt for the invoice")
	}
	if d := rec.Tags.Find("description"); len(d) < 2 || d[1] != string(raw) {
		t.Fatalf("the receipt's description is %v, want the zap request", d)
	}
	if pt := rec.Tags.Find("p"); len(pt) < 2 || pt[1] != alicePK {
		t.Fatalf("the receipt's p tag is %v, want %s", pt, alicePK)
	}
	p.do("refresh", click(button("Refresh zaps")), visible(zap+`//span[normalize-space()='Published']`))
	p.screenshot("zaps-desktop")

	p.do("narrow screen", chromedp.EmulateViewport(390, 844), visible(heading("Zaps")),
		visible(zap+`//span[normalize-space()='Published']`))
	checkNoOverflow(p)
	p.screenshot("zaps-390")
	p.w.check(t)
}
