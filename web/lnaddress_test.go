package web_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/plugins/lnurl"
)

// lnAddress is the API's record of a Lightning Address, as far as the test
// reads it.
type lnAddress struct {
	ID          string  `json:"id"`
	Username    string  `json:"username"`
	Active      bool    `json:"active"`
	AllowsNostr bool    `json:"allows_nostr"`
	NostrPubkey *string `json:"nostr_pubkey"`
}

// nostrKey is a fresh Nostr public key: its hex and its npub.
func nostrKey(t *testing.T) (hexKey, npub string) {
	t.Helper()
	priv, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	pub := schnorr.SerializePubKey(priv.PubKey())
	words, err := bech32.ConvertBits(pub, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	npub, err = bech32.Encode("npub", words)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(pub), npub
}

// addressOfQR reads the URL of the LNURL a QR code of an address carries:
// lightning: and the LUD-01 bech32, upper case.
func addressOfQR(t *testing.T, qr string) string {
	t.Helper()
	const prefix = "LIGHTNING:"
	if !strings.HasPrefix(qr, prefix) || qr != strings.ToUpper(qr) {
		t.Fatalf("the QR code of the address reads %q, want LIGHTNING:LNURL1… in upper case", qr)
	}
	hrp, data, err := bech32.DecodeNoLimit(strings.ToLower(strings.TrimPrefix(qr, prefix)))
	if err != nil || hrp != "lnurl" {
		t.Fatalf("the QR code's LNURL %q: hrp %q, %v", qr, hrp, err)
	}
	b, err := bech32.ConvertBits(data, 5, 8, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// payRequest reads the public LUD-16 payRequest of username from the
// server, as a wallet would (without a credential); it returns the status
// and the decoded answer.
func payRequest(t *testing.T, h *hearth, username string) (int, map[string]any) {
	t.Helper()
	resp, err := h.srv.Client().Get(h.URL + "/.well-known/lnurlp/" + username)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("the payRequest of %s: %v", username, err)
	}
	return resp.StatusCode, body
}

// TestDashboardLightningAddress drives the Lightning Address view: the
// API's refusals shown as it words them (an invalid username — the XSS
// probe —, a reserved one, a taken one), an address registered with Nostr
// zaps and an npub, shown as user@domain with its QR code (the LNURL of
// its LUD-16 URL) and a copy button, answered by the public payRequest,
// shown on Receive, paid by another wallet through the API (the comment
// the probe) and seen arriving live on Home and in Activity; turned
// inactive (the payRequest 404), deleted after a confirm step; again at
// 390 px; and the note in place of the view for a key without
// read:ln_address.
func TestDashboardLightningAddress(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)

	// Bob's wallet, funded by the embedded node, with the address "bob".
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "bob"}, http.StatusCreated, nil, admin...)
	var bobKey struct{ Key string }
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "bob", "name": "bob",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction", "write:ln_address"}}, http.StatusCreated, &bobKey, admin...)
	bob := apiKey(bobKey.Key)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": 100_000_000}, http.StatusCreated, &fund, bob...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(100_000_000, bob...)
	h.call("POST", "/v1/me/lightning-address", map[string]string{"username": "bob"}, http.StatusCreated, nil, bob...)

	p := openDashboard(t, chromium, h.URL, 8*time.Minute)
	w := p.w
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))

	// Receive before any address: where to register one.
	p.do("Receive offers to register", click(link("Receive")), visible(heading("Receive")),
		visible(link("Register a Lightning Address")))
	p.do("open Lightning Address", click(link("Register a Lightning Address")), visible(heading("Lightning Address")),
		visible(`//h2[normalize-space()='Register an address']`), visible(input("Username")),
		visible(`//span[@id='ln-domain'][normalize-space()='@`+testDomain+`']`)) // the instance's domain (GET /v1/system/setup), before any address
	noAddress(t, w) // GET /v1/me/lightning-address: 404, none yet
	checkLabels(p)

	// Refusals, as the API words them; the probe stays text.
	refused := func(step, username, reason string, status int) {
		t.Helper()
		p.do(step, typeIn("Username", username), click(button("Register address")),
			visible(`//p[@role='alert'][normalize-space()=`+xpathString(reason)+`]`))
		w.take(t, fmt.Sprintf("/v1/me/lightning-address answered %d", status))
		w.take(t, fmt.Sprintf("status of %d", status))
	}
	refused("an invalid username", xssProbe, "username must be 1 to 64 characters of a-z, 0-9, '.', '_' and '-'", http.StatusUnprocessableEntity)
	refused("a reserved username", "Admin", `The username "admin" is reserved`, http.StatusUnprocessableEntity)
	refused("a taken username", "bob", "This username is already registered", http.StatusConflict)
	p.do("a Nostr key that is none", typeIn("Username", "alice"), typeIn("Nostr public key", xssProbe), click(button("Register address")),
		visible(`//p[@role='alert'][normalize-space()=`+xpathString("Not a Nostr public key: "+xssProbe+". Type an npub1… or 64 hex digits.")+`]`))
	p.do("zaps without a key", typeIn("Nostr public key", " "), click(`//input[@id='ln-zaps']`), click(button("Register address")),
		visible(`//p[@role='alert'][normalize-space()='Zaps need a Nostr public key: type your npub.']`))
	if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
		t.Fatalf("the probe %q became %d element(s)", xssProbe, n)
	}

	// Registered, with zaps and an npub: user@domain, its QR code, copy.
	keyHex, npub := nostrKey(t)
	const address = "alice@" + testDomain
	p.do("register", typeIn("Username", "Alice"), typeIn("Nostr public key", npub), click(button("Register address")),
		visible(`//strong[@id='ln-address'][normalize-space()='`+address+`']`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the Lightning Address']`),
		visible(text("span", "Active")), visible(text("p", "Nostr zaps allowed.")),
		visible(text("p", "Nostr key "+npub)), visible(button("Copy address")), visible(button("Delete address")))
	checkLabels(p)
	if url := addressOfQR(t, shownQR(p, "QR code of the Lightning Address")); url != "https://"+testDomain+"/.well-known/lnurlp/alice" {
		t.Fatalf("the QR code of the address is the LNURL of %q", url)
	}
	p.do("copy the address", click(button("Copy address")), visible(button("Copied")))
	var rec lnAddress
	h.call("GET", "/v1/me/lightning-address", nil, http.StatusOK, &rec, admin...)
	if rec.Username != "alice" || !rec.Active || !rec.AllowsNostr || rec.NostrPubkey == nil || *rec.NostrPubkey != keyHex {
		t.Fatalf("the address registered: %+v (want alice, active, zaps, key %s)", rec, keyHex)
	}
	var me struct {
		LnAddress string `json:"ln_address"`
	}
	h.call("GET", "/v1/me", nil, http.StatusOK, &me, admin...)
	if me.LnAddress != address {
		t.Fatalf("GET /v1/me: ln_address %q, want %q", me.LnAddress, address)
	}

	// The public payRequest answers, as any LNURL wallet reads it.
	code, pr := payRequest(t, h, "alice")
	meta, _ := pr["metadata"].(string)
	callback, _ := pr["callback"].(string)
	if code != http.StatusOK || pr["tag"] != "payRequest" || !strings.Contains(meta, `["text/identifier","`+address+`"]`) ||
		callback != h.URL+"/lnurlp/alice/callback" {
		t.Fatalf("the payRequest of alice: %d %v", code, pr)
	}
	p.screenshot("lightning-address-desktop")

	// Receive shows it too, with its QR code.
	p.do("Receive shows the address", click(link("Receive")), visible(heading("Receive")),
		visible(`//section[@aria-labelledby='receive-ln-h']//strong[normalize-space()='`+address+`']`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the Lightning Address']`))
	if url := addressOfQR(t, shownQR(p, "QR code of the Lightning Address")); url != "https://"+testDomain+"/.well-known/lnurlp/alice" {
		t.Fatalf("Receive's QR code of the address is the LNURL of %q", url)
	}
	checkLabels(p)
	p.screenshot("receive-address-desktop")

	// Bob pays the address through the API; Home sees it arrive live, the
	// comment (the probe) as text.
	p.do("go home", click(link("Home")), visible(heading("Wallet")), balanceIs("0 sats"))
	h.call("POST", "/v1/me/payments", map[string]any{"input": address, "amount_msat": 21_000_000, "comment": xssProbe},
		http.StatusCreated, nil, append(bob, idem("pay-address")...)...)
	p.do("the payment arrives live", balanceIs("21,000 sats"), visible(text("span", xssProbe)))
	p.do("Activity shows it", click(link("Activity")), visible(heading("Activity")), visible(text("span", xssProbe)))
	if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
		t.Fatalf("the comment %q became %d element(s)", xssProbe, n)
	}

	// Inactive: wallets are told it is unknown; Receive no longer shows it.
	p.do("turn it off", click(link("Lightning Address")), visible(button("Save")),
		click(`//input[@id='ln-active']`), click(button("Save")),
		visible(text("span", "Inactive")), visible(`//strong[@id='ln-address'][normalize-space()='`+address+`']`),
		visible(text("p", "Saved.")))
	if code, body := payRequest(t, h, "alice"); code != http.StatusNotFound || body["status"] != "ERROR" {
		t.Fatalf("the payRequest of an inactive address: %d %v, want 404 {status: ERROR}", code, body)
	}
	h.call("GET", "/v1/me/lightning-address", nil, http.StatusOK, &rec, admin...)
	if rec.Active || rec.NostrPubkey == nil || *rec.NostrPubkey != keyHex {
		t.Fatalf("the address after Save: %+v", rec)
	}
	p.do("Receive without it", click(link("Receive")), visible(link("Register a Lightning Address")))
	p.do("turn it on", click(link("Lightning Address")), visible(text("span", "Inactive")),
		click(`//input[@id='ln-active']`), click(button("Save")), visible(text("span", "Active")),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the Lightning Address']`))
	if code, _ := payRequest(t, h, "alice"); code != http.StatusOK {
		t.Fatalf("the payRequest of the address active again: %d", code)
	}

	// Deleted after a confirm step; the username is free again.
	p.do("ask to delete", click(button("Delete address")), visible(button("Delete "+address+" now")))
	p.do("keep it", click(button("Keep")), visible(button("Delete address")))
	p.do("delete it", click(button("Delete address")), click(button("Delete "+address+" now")),
		visible(`//h2[normalize-space()='Register an address']`),
		visible(`//span[@id='ln-domain'][normalize-space()='@`+testDomain+`']`))
	noAddress(t, w)
	if code, _ := payRequest(t, h, "alice"); code != http.StatusNotFound {
		t.Fatalf("the payRequest of a deleted address: %d", code)
	}

	// At 390 px: registered again, shown, deleted.
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	checkNoOverflow(p)
	p.screenshot("lightning-address-form-390")
	p.do("register at 390 px", typeIn("Username", "alice"), click(button("Register address")),
		visible(`//strong[@id='ln-address'][normalize-space()='`+address+`']`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the Lightning Address']`))
	checkNoOverflow(p)
	p.screenshot("lightning-address-390")
	p.do("Receive at 390 px", click(link("Receive")), visible(`//section[@aria-labelledby='receive-ln-h']//strong[normalize-space()='`+address+`']`))
	checkNoOverflow(p)
	p.do("delete at 390 px", click(link("Lightning Address")), click(button("Delete address")), click(button("Delete "+address+" now")),
		visible(`//h2[normalize-space()='Register an address']`))
	noAddress(t, w)

	// Registered inactive: two requests (the API registers active), one step.
	p.do("register it inactive", typeIn("Username", "alice"), click(`//input[@id='ln-active']`), click(button("Register address")),
		visible(text("span", "Inactive")), visible(`//strong[@id='ln-address'][normalize-space()='`+address+`']`))
	if code, _ := payRequest(t, h, "alice"); code != http.StatusNotFound {
		t.Fatalf("the payRequest of an address registered inactive: %d", code)
	}
	p.do("delete it again", click(button("Delete address")), click(button("Delete "+address+" now")),
		visible(`//h2[normalize-space()='Register an address']`))
	noAddress(t, w)

	// A key without read:ln_address: the view is a note, not an error.
	var key struct{ Key string }
	h.call("POST", "/v1/me/api-keys", map[string]any{"name": "no addresses", "permissions": []string{"read:wallet", "read:transaction"}},
		http.StatusCreated, &key, admin...)
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	p.do("sign in with the key", typeIn("API key", key.Key), click(button("Sign in with the key")), visible(heading("Wallet")))
	p.do("open it with the key", click(link("Lightning Address")), visible(heading("Lightning Address")),
		visible(`//p[@role='status'][starts-with(normalize-space(), 'The Lightning Address is hidden: this key lacks the read:ln_address permission.')]`))
	if n := get(p, "no form", chromedp.Evaluate[int](`document.querySelectorAll('main form, main [role=alert]').length`)); n != 0 {
		t.Fatalf("the view without read:ln_address shows %d form(s) or error(s)", n)
	}
	w.take(t, "/v1/me/lightning-address answered 403")
	w.take(t, "status of 403")
	w.check(t)
}

// noAddress takes the watcher's record of the view's GET
// /v1/me/lightning-address answering 404: how the API says the wallet has
// no address.
func noAddress(t *testing.T, w *watcher) {
	t.Helper()
	w.take(t, "/v1/me/lightning-address answered 404")
	w.take(t, "status of 404")
}

// xpathString quotes s for XPath, which has no escapes: in the quote it
// lacks, else a concat of both.
func xpathString(s string) string {
	switch {
	case !strings.Contains(s, `"`):
		return `"` + s + `"`
	case !strings.Contains(s, "'"):
		return "'" + s + "'"
	}
	parts := strings.Split(s, `"`)
	for i, p := range parts {
		parts[i] = `"` + p + `"`
	}
	return "concat(" + strings.Join(parts, `, '"', `) + ")"
}

// TestAddressModule runs lnurl.js in Chromium on cases checked against Go:
// the QR text of an address (plugins/lnurl's EncodeLNURL of its LUD-16
// URL; http for an onion), npub and hex Nostr keys read, and what is not
// one refused (another hrp, a bad checksum, mixed case, a short key).
func TestAddressModule(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, false)
	keyHex, npub := nostrKey(t)
	short, err := bech32.ConvertBits([]byte{1, 2, 3}, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	shortNpub, _ := bech32.Encode("npub", short)
	nsec, _ := bech32.Encode("nsec", mustWords(t, keyHex))
	bad := npub[:len(npub)-1] + map[bool]string{true: "q", false: "p"}[npub[len(npub)-1] != 'q']
	mixed := strings.ToUpper(npub[:6]) + npub[6:]

	ctx := startBrowser(t, chromium, 3*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate(h.URL+"/assets/icon.svg")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const m = await import('/assets/lnurl.js');
		const keys = [`+jsString(npub)+`, `+jsString(strings.ToUpper(keyHex))+`, ' '+`+jsString(npub)+`+' ',
			`+jsString(bad)+`, `+jsString(mixed)+`, `+jsString(shortNpub)+`, `+jsString(nsec)+`, 'npub1', '', '<b>x</b>'];
		return JSON.stringify({
			qr: m.addressQR('alice@hearth.test'),
			onion: m.addressQR('bob@abcdef.onion'),
			keys: keys.map(m.nostrPubkeyHex),
			npub: m.npubOf(`+jsString(keyHex)+`),
			id: m.identifierOf({ metadata: '[["text/plain","Payment to a@b.c"],["text/identifier","a@b.c"]]' }),
			noID: m.identifierOf({ metadata: 'not json' }),
		});
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		QR, Onion, Npub, ID, NoID string
		Keys                      []*string
	}
	if err := json.Unmarshal([]byte(got), &r); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	want, err := lnurl.EncodeLNURL("https://hearth.test/.well-known/lnurlp/alice")
	if err != nil {
		t.Fatal(err)
	}
	if r.QR != "LIGHTNING:"+want {
		t.Errorf("addressQR = %q, want LIGHTNING:%s", r.QR, want)
	}
	if u := addressOfQR(t, r.Onion); u != "http://abcdef.onion/.well-known/lnurlp/bob" {
		t.Errorf("the QR code of an onion address is the LNURL of %q", u)
	}
	if r.Npub != npub || r.ID != "a@b.c" || r.NoID != "" {
		t.Errorf("npubOf = %q (want %q), identifierOf = %q, %q", r.Npub, npub, r.ID, r.NoID)
	}
	for i, k := range r.Keys {
		switch {
		case i < 3 && (k == nil || *k != keyHex):
			t.Errorf("nostrPubkeyHex case %d = %v, want %s", i, k, keyHex)
		case i >= 3 && k != nil:
			t.Errorf("nostrPubkeyHex case %d = %q, want it refused", i, *k)
		}
	}
	if len(r.Keys) != 10 {
		t.Errorf("%d keys read, want 10", len(r.Keys))
	}
}

// mustWords is the bech32 data of a hex string.
func mustWords(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	w, err := bech32.ConvertBits(b, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
