package lnurl_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestRegistration runs the /v1/me/lightning-address routes through every
// rule and refusal.
func TestRegistration(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "hearth.test", PublicURL: "https://hearth.test"}, nil)
		alice, _ := k.user("alice", 0)
		bob, _ := k.user("bob", 0)
		a := k.register(alice, "Alice")
		if a.Username != "alice" || !a.Active || a.AllowsNostr || a.ID == "" {
			t.Fatalf("registered %+v", a)
		}
		var got lnurl.Address
		r := k.do(alice, "GET", "/v1/me/lightning-address", nil)
		if r.Code != 200 {
			t.Fatalf("GET: %d %s", r.Code, r.Body)
		}
		r.json(t, &got)
		if got.ID != a.ID {
			t.Fatalf("GET gave %+v, want %+v", got, a)
		}
		var me wallet.Wallet
		k.do(alice, "GET", "/v1/me", nil).json(t, &me)
		if me.LnAddress == nil || *me.LnAddress != "alice@hearth.test" {
			t.Fatalf("wallet record's ln_address: %v", me.LnAddress)
		}
		for _, c := range []struct {
			token string
			body  any
			code  int
			want  string
		}{
			{bob, map[string]any{"username": "alice"}, 409, "username_taken"},
			{bob, map[string]any{"username": "ALICE"}, 409, "username_taken"},
			{alice, map[string]any{"username": "alice2"}, 409, "ln_address_exists"},
			{bob, map[string]any{"username": ""}, 422, "invalid_username"},
			{bob, map[string]any{"username": "a b"}, 422, "invalid_username"},
			{bob, map[string]any{"username": "bob@x"}, 422, "invalid_username"},
			{bob, map[string]any{"username": "ünï"}, 422, "invalid_username"},
			{bob, map[string]any{"username": strings.Repeat("b", 65)}, 422, "invalid_username"},
			{bob, map[string]any{"username": "admin"}, 422, "username_reserved"},
			{bob, map[string]any{"username": "Postmaster"}, 422, "username_reserved"},
			{bob, map[string]any{}, 400, ""},
			{bob, map[string]any{"username": "bob", "extra": 1}, 400, ""},
			{bob, map[string]any{"username": 7}, 400, ""},
			{bob, map[string]any{"username": "bob", "allows_nostr": true}, 422, "invalid_nostr_pubkey"},
			{bob, map[string]any{"username": "bob", "nostr_pubkey": "xyz"}, 422, "invalid_nostr_pubkey"},
			{"", map[string]any{"username": "bob"}, 401, ""},
		} {
			r := k.do(c.token, "POST", "/v1/me/lightning-address", c.body)
			if r.Code != c.code || !strings.Contains(string(r.Body), c.want) {
				t.Errorf("POST %v: %d %s, want %d %s", c.body, r.Code, r.Body, c.code, c.want)
			}
		}
		// The longest username, and one with every allowed sign.
		k.register(bob, strings.Repeat("b", 64))
		if r := k.do(bob, "PUT", "/v1/me/lightning-address", map[string]any{"username": "b.o_b-1"}); r.Code != 200 {
			t.Fatalf("PUT username: %d %s", r.Code, r.Body)
		}
		if r := k.do(bob, "PUT", "/v1/me/lightning-address", map[string]any{"username": "alice"}); r.Code != 409 {
			t.Fatalf("PUT to a taken username: %d %s", r.Code, r.Body)
		}
		// Scopes.
		readOnly, _ := k.user("alice", 0, auth.ReadLnAddress)
		writeOnly, _ := k.user("alice", 0, auth.WriteLnAddress)
		for _, c := range []struct {
			token, method string
			code          int
		}{
			{readOnly, "GET", 200}, {readOnly, "POST", 403}, {readOnly, "PUT", 403}, {readOnly, "DELETE", 403},
			{writeOnly, "GET", 403},
		} {
			var body any
			if c.method == "POST" || c.method == "PUT" {
				body = map[string]any{"username": "zed"}
			}
			if r := k.do(c.token, c.method, "/v1/me/lightning-address", body); r.Code != c.code {
				t.Errorf("%s with a token of few scopes: %d %s, want %d", c.method, r.Code, r.Body, c.code)
			}
		}
		// active=false hides it; the username stays taken.
		if r := k.do(alice, "PUT", "/v1/me/lightning-address", map[string]any{"active": false}); r.Code != 200 {
			t.Fatalf("deactivating: %d %s", r.Code, r.Body)
		}
		if r := k.do("", "GET", "/.well-known/lnurlp/alice", nil); r.Code != 404 || !strings.Contains(string(r.Body), `"status":"ERROR"`) {
			t.Errorf("an inactive address is served: %d %s", r.Code, r.Body)
		}
		me = wallet.Wallet{}
		k.do(alice, "GET", "/v1/me", nil).json(t, &me)
		if me.LnAddress != nil {
			t.Errorf("an inactive address shows on the wallet: %s", *me.LnAddress)
		}
		carolTok, _ := k.user("carol", 0)
		if r := k.do(carolTok, "POST", "/v1/me/lightning-address", map[string]any{"username": "alice"}); r.Code != 409 {
			t.Errorf("took an inactive address's username: %d %s", r.Code, r.Body)
		}
		// Deleting frees the username.
		if r := k.do(alice, "DELETE", "/v1/me/lightning-address", nil); r.Code != 204 {
			t.Fatalf("DELETE: %d %s", r.Code, r.Body)
		}
		if r := k.do(alice, "GET", "/v1/me/lightning-address", nil); r.Code != 404 {
			t.Errorf("GET after DELETE: %d %s", r.Code, r.Body)
		}
		if r := k.do(alice, "DELETE", "/v1/me/lightning-address", nil); r.Code != 404 {
			t.Errorf("second DELETE: %d %s", r.Code, r.Body)
		}
		k.register(carolTok, "alice")
	})
}

// TestAdminRoutes runs /v1/lightning-addresses: the admin's over every
// wallet, refused to users.
func TestAdminRoutes(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{}, nil)
		admin := k.admin()
		bob, bobW := k.user("bob", 0)
		_, carolW := k.user("carol", 0)
		r := k.do(admin, "POST", "/v1/lightning-addresses", map[string]any{"wallet_id": carolW.ID, "username": "carol"})
		if r.Code != 201 {
			t.Fatalf("admin create: %d %s", r.Code, r.Body)
		}
		var c lnurl.Address
		r.json(t, &c)
		if c.WalletID != carolW.ID {
			t.Fatalf("created %+v", c)
		}
		k.register(bob, "bob")
		for _, q := range []struct {
			query string
			n     int
		}{{"", 2}, {"?wallet_id=" + carolW.ID, 1}, {"?username=BOB", 1}, {"?active=false", 0}, {"?limit=1", 1}} {
			var as []lnurl.Address
			r := k.do(admin, "GET", "/v1/lightning-addresses"+q.query, nil)
			r.json(t, &as)
			if r.Code != 200 || len(as) != q.n {
				t.Errorf("list %q: %d %d addresses, want %d", q.query, r.Code, len(as), q.n)
			}
		}
		for _, c := range []struct {
			method, path string
			body         any
			code         int
		}{
			{"POST", "/v1/lightning-addresses", map[string]any{"wallet_id": bobW.ID, "username": "bobby"}, 409},
			{"POST", "/v1/lightning-addresses", map[string]any{"username": "x"}, 400},
			{"POST", "/v1/lightning-addresses", map[string]any{"wallet_id": "nope", "username": "x"}, 400},
			{"POST", "/v1/lightning-addresses", map[string]any{"wallet_id": "0190b6f2-0000-7000-8000-000000000000", "username": "x"}, 404},
			{"GET", "/v1/lightning-addresses/" + c.ID, nil, 200},
			{"GET", "/v1/lightning-addresses/0190b6f2-0000-7000-8000-000000000000", nil, 404},
			{"GET", "/v1/lightning-addresses/x", nil, 400},
			{"PUT", "/v1/lightning-addresses/" + c.ID, map[string]any{"active": false}, 200},
			{"DELETE", "/v1/lightning-addresses/" + c.ID, nil, 204},
			{"DELETE", "/v1/lightning-addresses/" + c.ID, nil, 404},
		} {
			if r := k.do(admin, c.method, c.path, c.body); r.Code != c.code {
				t.Errorf("admin %s %s: %d %s, want %d", c.method, c.path, r.Code, r.Body, c.code)
			}
		}
		if r := k.do(bob, "GET", "/v1/lightning-addresses", nil); r.Code != 403 {
			t.Errorf("a user listed every address: %d %s", r.Code, r.Body)
		}
		var doc map[string]any
		k.do("", "GET", "/v1/openapi.json", nil).json(t, &doc)
		paths, _ := doc["paths"].(map[string]any)
		for _, p := range []string{"/v1/me/lightning-address", "/v1/lightning-addresses/{id}", "/.well-known/lnurlp/{username}", "/lnurlp/{username}/callback"} {
			if _, ok := paths[p]; !ok {
				t.Errorf("OpenAPI document lacks %s", p)
			}
		}
	})
}

// TestConcurrentRegistration races registrations: of one username by two
// wallets, and of two usernames by one wallet. The unique indexes let one
// win each race; the other is told why with 409.
func TestConcurrentRegistration(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{}, nil)
		for round := range 8 {
			a, _ := k.user(fmt.Sprintf("a%d", round), 0)
			b, _ := k.user(fmt.Sprintf("b%d", round), 0)
			codes := race(k, []string{a, b}, []string{fmt.Sprintf("same%d", round), fmt.Sprintf("same%d", round)})
			if codes[0]+codes[1] != 201+409 {
				t.Fatalf("round %d: one username twice: %v", round, codes)
			}
			c, _ := k.user(fmt.Sprintf("c%d", round), 0)
			codes = race(k, []string{c, c}, []string{fmt.Sprintf("one%d", round), fmt.Sprintf("two%d", round)})
			if codes[0]+codes[1] != 201+409 {
				t.Fatalf("round %d: one wallet twice: %v", round, codes)
			}
		}
		var as []lnurl.Address
		k.do(k.admin(), "GET", "/v1/lightning-addresses?limit=1000", nil).json(t, &as)
		if len(as) != 16 {
			t.Fatalf("%d addresses, want 16", len(as))
		}
	})
}

// race registers usernames[i] as tokens[i], all at once.
func race(k *kit, tokens, usernames []string) []int {
	codes := make([]int, len(tokens))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range tokens {
		wg.Go(func() {
			<-start
			codes[i] = k.do(tokens[i], "POST", "/v1/me/lightning-address", map[string]any{"username": usernames[i]}).Code
		})
	}
	close(start)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusCreated && c != http.StatusConflict {
			k.t.Errorf("registering %s: %d", usernames[i], c)
		}
	}
	return codes
}

// TestDeletedWallet: an address whose wallet was deleted is unknown to
// LNURL wallets and to payers, not an error.
func TestDeletedWallet(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{}, nil)
		carol, carolW := k.user("carol", 0)
		bob, _ := k.user("bob", 10_000)
		k.register(carol, "carol")
		if r := k.do(k.admin(), "DELETE", "/v1/wallets/"+carolW.ID, nil); r.Code != 204 {
			t.Fatalf("deleting carol's wallet: %d %s", r.Code, r.Body)
		}
		lnurlError(t, k.do("", "GET", "/.well-known/lnurlp/carol", nil), 404, "payRequest of a deleted wallet")
		lnurlError(t, k.do("", "GET", "/lnurlp/carol/callback?amount=5000", nil), 404, "callback of a deleted wallet")
		if r, _ := k.pay(bob, map[string]any{"input": "carol@" + k.cfg.Domain, "amount_msat": 1000}); r.Code != 422 ||
			!strings.Contains(string(r.Body), "unknown_ln_address") {
			t.Errorf("paying a deleted wallet's address: %d %s", r.Code, r.Body)
		}
		e.CheckLedger()
	})
}
