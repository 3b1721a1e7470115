package nwc_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// appKey is an app's own key pair, made by the app.
func appKey(t *testing.T) (secret, pub string) {
	t.Helper()
	secret = gonostr.GeneratePrivateKey()
	pub, err := gonostr.GetPublicKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	return secret, pub
}

// pairWithPubkey makes a connection for the app's own key and returns it
// with the app, which holds its secret and talks to the answer's wallet
// key on the answer's relay.
func (k *kit) pairWithPubkey(token string, body map[string]any) (nwc.Connection, *nostrtest.App) {
	k.t.Helper()
	secret, pub := appKey(k.t)
	body["pubkey"] = pub
	r := k.do(token, "POST", "/v1/me/nwc/connections", body)
	if r.Code != http.StatusCreated {
		k.t.Fatalf("pairing with a pubkey: %d %s", r.Code, r.Body)
	}
	var c nwc.Connection
	r.decode(k.t, &c)
	if len(c.Relays) == 0 {
		k.t.Fatalf("the connection names no relay: %s", r.Body)
	}
	uri := "nostr+walletconnect://" + c.WalletPubkey + "?relay=" + url.QueryEscape(c.Relays[0]) + "&secret=" + secret
	return c, nostrtest.Connect(k.t, uri)
}

// TestPairingWithTheAppsPubkey makes a connection for the app's own key:
// the answer carries no secret, only what the app needs (its wallet key,
// the relays, the Lightning Address), and the app, with its own secret,
// is answered on that wallet key.
func TestPairingWithTheAppsPubkey(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 50_000, auth.AllScopes)
		k.addresses.set(aliceW.ID, "alice@hearth.test")
		for _, bad := range []string{"", "abc", strings.Repeat("g", 64), strings.Repeat("A", 64), strings.Repeat("f", 64)} {
			r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "x", "pubkey": bad})
			if r.Code != http.StatusBadRequest || !strings.Contains(string(r.Body), "pubkey") {
				t.Fatalf("pubkey %q: %d %s", bad, r.Code, r.Body)
			}
		}
		r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "x", "pubkey": strings.Repeat("f", 64)})
		var body map[string]any
		r.decode(t, &body)
		if body["code"] != "invalid_request" || body["reason"] == nil {
			t.Fatalf("the refusal is no JSON error: %s", r.Body)
		}

		c, a := k.pairWithPubkey(alice, map[string]any{"name": "Zapstr", "methods": []string{"get_balance", "get_info"}})
		raw := k.do(alice, "GET", "/v1/me/nwc/connections/"+c.ID, nil)
		if c.URI != "" || c.Pubkey != a.Pub() || c.Lud16 != "alice@hearth.test" || strings.Contains(string(raw.Body), "secret") {
			t.Fatalf("the pubkey pairing answered %+v", c)
		}
		if c.WalletPubkey == k.p.ServicePubkey() || len(c.WalletPubkey) != 64 || c.Relays[0] != k.relay.URL() {
			t.Fatalf("wallet key %q, relays %v: the connection's own key and the server's relays expected", c.WalletPubkey, c.Relays)
		}
		var bal struct{ Balance int64 }
		a.Call("get_balance", nil).Decode(t, &bal)
		if bal.Balance != 50_000 {
			t.Fatalf("get_balance: %d", bal.Balance)
		}
		if r := a.Call("make_invoice", map[string]any{"amount": 1_000}); r.Code() != "RESTRICTED" {
			t.Fatalf("a method the connection lacks: %+v", r)
		}
		var got nwc.Connection
		raw.decode(t, &got)
		if got.WalletPubkey != c.WalletPubkey || len(got.Relays) != 1 {
			t.Fatalf("the record %+v", got)
		}
	})
}

// TestKeyPerConnection: two connections have their own wallet keys and
// info events (their own methods, p-tagged to their app); a revoked one's
// info event is deleted and its requests are answered UNAUTHORIZED, while
// the other goes on.
func TestKeyPerConnection(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 10_000, auth.AllScopes)
		one, a1 := k.connect(alice, map[string]any{"name": "one", "methods": []string{"get_balance", "notifications"}})
		two, a2 := k.pairWithPubkey(alice, map[string]any{"name": "two", "methods": []string{"get_info", "make_invoice"}})
		if one.WalletPubkey == two.WalletPubkey || a1.Wallet() != one.WalletPubkey {
			t.Fatalf("wallet keys %s and %s (URI's %s)", one.WalletPubkey, two.WalletPubkey, a1.Wallet())
		}
		info := func(c nwc.Connection) []*gonostr.Event {
			return k.relay.Stored(gonostr.Filter{Kinds: []int{13194}, Authors: []string{c.WalletPubkey}})
		}
		for _, c := range []nwc.Connection{one, two} {
			evs := info(c)
			if len(evs) != 1 || evs[0].Content != strings.Join(c.Methods, " ") || evs[0].Tags.FindWithValue("p", c.Pubkey) == nil {
				t.Fatalf("%s's info events: %v", c.Name, evs)
			}
			if ok, err := evs[0].CheckSignature(); !ok || err != nil {
				t.Fatalf("%s's info event is not signed by its key", c.Name)
			}
			hasNotif := evs[0].Tags.Find("notifications") != nil
			if hasNotif != (c.Name == "one") {
				t.Fatalf("%s's info event's notifications tag: %v", c.Name, evs[0].Tags)
			}
		}
		var bal struct{ Balance int64 }
		a1.Call("get_balance", nil).Decode(t, &bal)
		a2.Call("get_info", nil).Decode(t, &map[string]any{})
		if r := k.do(alice, "DELETE", "/v1/me/nwc/connections/"+two.ID, nil); r.Code != http.StatusNoContent {
			t.Fatalf("revoking: %d %s", r.Code, r.Body)
		}
		k.e.Eventually("the revoked connection's info event deleted", func() bool { return len(info(two)) == 0 })
		if r := a2.Call("get_info", nil); r.Code() != "UNAUTHORIZED" {
			t.Fatalf("a revoked connection's request: %+v", r)
		}
		if len(info(one)) != 1 {
			t.Fatal("the other connection's info event went too")
		}
		a1.Call("get_balance", nil).Decode(t, &bal)
		if bal.Balance != 10_000 {
			t.Fatalf("the other connection after the revocation: %d", bal.Balance)
		}
		// A stranger writing to a connection's wallet key is no app of it.
		s := nostrtest.Connect(t, "nostr+walletconnect://"+one.WalletPubkey+"?relay="+url.QueryEscape(k.relay.URL())+
			"&secret="+gonostr.GeneratePrivateKey())
		if r := s.Call("get_balance", nil); r.Code() != "UNAUTHORIZED" {
			t.Fatalf("a stranger on a connection's key: %+v", r)
		}
	})
}
