package nwc_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestAlbySDKOnAPubkeyConnection: an app written with @getalby/sdk holds
// its own secret, the wallet makes a connection for its pubkey, and the
// SDK's NWCClient (the connection's wallet key, the relay, the app's
// secret) reads the info, the balance, makes an invoice and pays one.
func TestAlbySDKOnAPubkeyConnection(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, aliceW := k.user("alice", 100_000, auth.AllScopes)
	bob, bobW := k.user("bob", 0, auth.AllScopes)
	k.addresses.set(aliceW.ID, "alice@hearth.test")
	secret, pub := appKey(t)
	r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "SDK", "pubkey": pub})
	if r.Code != http.StatusCreated {
		t.Fatalf("pairing: %d %s", r.Code, r.Body)
	}
	var c nwc.Connection
	r.decode(t, &c)
	bolt11, hash := k.invoice(bob, 7_000)

	app := runSDK(t, map[string]any{"mode": "nwc", "relay": c.Relays[0], "walletPubkey": c.WalletPubkey, "secret": secret,
		"payInvoice": bolt11})
	var info struct {
		Methods []string `json:"methods"`
		Network string   `json:"network"`
	}
	app.next("info", &info)
	if len(info.Methods) != 13 {
		t.Fatalf("get_info through the SDK: %+v", info)
	}
	var bal struct{ Balance int64 }
	app.next("balance", &bal)
	if bal.Balance != 100_000 {
		t.Fatalf("get_balance through the SDK: %d", bal.Balance)
	}
	var inv struct {
		Invoice string `json:"invoice"`
		Amount  int64  `json:"amount"`
	}
	app.next("invoice", &inv)
	if inv.Amount != 21_000 || !strings.HasPrefix(inv.Invoice, "ln") {
		t.Fatalf("make_invoice through the SDK: %+v", inv)
	}
	var paid struct{ Preimage string }
	app.next("paid", &paid)
	pre, _ := hex.DecodeString(paid.Preimage)
	if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != hash {
		t.Fatalf("pay_invoice through the SDK: preimage %q", paid.Preimage)
	}
	app.next("budget", nil)
	if got := e.Balance(bobW.ID).AvailableMsat; got != 7_000 {
		t.Fatalf("bob has %d msat", got)
	}
}

// TestAlbySDKWalletAuth: the SDK's NWAClient makes a nostr+walletauth URI;
// the wallet's owner gives it to Hearth (seeing first what it asks for);
// NWAClient.subscribe resolves on the connection's info event, and the
// client it resolves to is answered.
func TestAlbySDKWalletAuth(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, _ := k.user("alice", 30_000, auth.AllScopes)
	secret, pub := appKey(t)
	app := runSDK(t, map[string]any{"mode": "nwa", "relay": k.relay.URL(), "secret": secret})
	var uri string
	app.next("uri", &uri)
	if !strings.HasPrefix(uri, "nostr+walletauth://"+pub) {
		t.Fatalf("the SDK's URI %q", uri)
	}

	var ask nwc.WalletAuthAsk
	r := k.do(alice, "POST", "/v1/me/nwc/walletauth", map[string]any{"walletauth": uri})
	if r.Code != http.StatusOK {
		t.Fatalf("reading the URI: %d %s", r.Code, r.Body)
	}
	r.decode(t, &ask)
	if ask.Pubkey != pub || ask.Name != "SDK app" || strings.Join(ask.Methods, " ") != "get_info get_balance make_invoice notifications" ||
		strings.Join(ask.Unsupported, " ") != "sign_message" || ask.Budget == nil || ask.Budget.MaxMsat != 5_000_000 ||
		ask.Budget.Renewal != "weekly" || ask.Refusal != "" || len(ask.Relays) != 1 {
		t.Fatalf("what the URI asks: %s", r.Body)
	}

	r = k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"walletauth": uri})
	if r.Code != http.StatusCreated {
		t.Fatalf("accepting the URI: %d %s", r.Code, r.Body)
	}
	var c nwc.Connection
	r.decode(t, &c)
	if c.URI != "" || c.Pubkey != pub || c.Name != "SDK app" || c.Budget == nil || c.Budget.MaxMsat != 5_000_000 {
		t.Fatalf("the connection %s", r.Body)
	}
	var walletPubkey string
	app.next("walletPubkey", &walletPubkey)
	if walletPubkey != c.WalletPubkey {
		t.Fatalf("the SDK resolved to the wallet key %s, the connection's is %s", walletPubkey, c.WalletPubkey)
	}
	var bal struct{ Balance int64 }
	app.next("balance", &bal)
	if bal.Balance != 30_000 {
		t.Fatalf("get_balance through the NWA client: %d", bal.Balance)
	}
}

// TestWalletAuthRefusals: a URI the SDK would not read, and one this
// server cannot serve (no relay of the server, no method it serves, a
// wallet of its own), are refused with what is wrong.
func TestWalletAuthRefusals(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, _ := k.user("alice", 0, auth.AllScopes)
	_, pub := appKey(t)
	relay := "relay=" + k.relay.URL()
	for _, c := range []struct {
		uri    string
		status int
		says   string
	}{
		{"nostr+walletconnect://" + pub + "?" + relay + "&request_methods=get_info", 400, "scheme"},
		{"nostr+walletauth://abc?" + relay + "&request_methods=get_info", 400, "app pubkey"},
		{"nostr+walletauth://" + pub + "?" + relay, 400, "request methods"},
		{"nostr+walletauth://" + strings.Repeat("f", 64) + "?" + relay + "&request_methods=get_info", 400, "app key"},
		{"nostr+walletauth://" + pub + "?" + relay + "&request_methods=get_info&metadata=%7B", 400, "metadata"},
		{"nostr+walletauth://" + pub + "?relay=wss://elsewhere.example&request_methods=get_info", 422, "none of the app's relays"},
		{"nostr+walletauth://" + pub + "?" + relay + "&request_methods=sign_message", 422, "no method"},
		{"nostr+walletauth://" + pub + "?" + relay + "&request_methods=get_info&isolated=true", 422, "isolated"},
	} {
		r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"walletauth": c.uri})
		if r.Code != c.status || !strings.Contains(string(r.Body), c.says) {
			t.Fatalf("%s: %d %s", c.uri, r.Code, r.Body)
		}
	}
	// The SDK's own form: nostr+walletauth+<app>:, without the slashes.
	r := k.do(alice, "POST", "/v1/me/nwc/walletauth", map[string]any{"walletauth": "nostr+walletauth+alby:" + pub + "?" + relay +
		"&request_methods=get_info%20pay_invoice&max_amount=12abc&expires_at=4102444800"})
	var ask nwc.WalletAuthAsk
	r.decode(t, &ask)
	if r.Code != http.StatusOK || ask.Pubkey != pub || len(ask.Methods) != 2 || ask.Budget == nil || ask.Budget.MaxMsat != 12_000 ||
		ask.Budget.Renewal != "monthly" || ask.ExpiresAt == nil || ask.ExpiresAt.Year() != 2100 {
		t.Fatalf("the SDK's other form: %d %s", r.Code, r.Body)
	}
}
