package nwc_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestConnectionsOverTheAPI makes, lists, reads and revokes connections
// through the routes, the caller's and the admin's, with their refusals.
func TestConnectionsOverTheAPI(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 10_000, auth.AllScopes)
		reader, _ := k.user("reader", 0, auth.NewScopes(auth.ReadWallet, auth.ReadAPIKey, auth.WriteAPIKey))
		admin, err := k.tokens.Issue(auth.AdminUserID, auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}

		for _, bad := range []map[string]any{
			{},
			{"name": ""},
			{"name": strings.Repeat("n", 101)},
			{"name": "x", "methods": []string{"pay_invoice", "steal"}},
			{"name": "x", "budget": map[string]any{"max_msat": 0, "renewal": "daily"}},
			{"name": "x", "budget": map[string]any{"max_msat": 10, "renewal": "hourly"}},
		} {
			r := k.do(alice, "POST", "/v1/me/nwc/connections", bad)
			if r.Code != http.StatusUnprocessableEntity && r.Code != http.StatusBadRequest {
				t.Fatalf("%v: %d %s", bad, r.Code, r.Body)
			}
		}
		// Methods that imply permissions beyond the caller's.
		r := k.do(reader, "POST", "/v1/me/nwc/connections", map[string]any{"name": "x", "methods": []string{"pay_invoice"}})
		if r.Code != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "permission_exceeded") {
			t.Fatalf("pay_invoice for a reader: %d %s", r.Code, r.Body)
		}
		r = k.do(reader, "POST", "/v1/me/nwc/connections", map[string]any{"name": "balance", "methods": []string{"get_balance"}})
		if r.Code != http.StatusCreated {
			t.Fatalf("get_balance for a reader: %d %s", r.Code, r.Body)
		}

		k.addresses.set(aliceW.ID, "alice@hearth.test")
		c, a := k.connect(alice, map[string]any{"name": "Amethyst", "budget": map[string]any{"max_msat": 5_000}})
		if a.Lud16() != "alice@hearth.test" {
			t.Fatalf("the URI's lud16 is %q", a.Lud16())
		}
		a.Call("get_info", nil).Decode(t, &map[string]any{})
		if c.Budget == nil || c.Budget.Renewal != "never" || c.WalletID != aliceW.ID {
			t.Fatalf("created %+v", c)
		}
		var list []nwc.Connection
		k.do(alice, "GET", "/v1/me/nwc/connections", nil).decode(t, &list)
		if len(list) != 1 || list[0].ID != c.ID || list[0].URI != "" || list[0].LastUsedAt == nil {
			t.Fatalf("listed %+v", list)
		}
		// The connection's key is no API key of the user's.
		var keys []map[string]any
		k.do(alice, "GET", "/v1/me/api-keys", nil).decode(t, &keys)
		if len(keys) != 0 {
			t.Fatalf("the connection shows among the API keys: %v", keys)
		}
		if r := k.do(reader, "GET", "/v1/me/nwc/connections/"+c.ID, nil); r.Code != http.StatusNotFound {
			t.Fatalf("another user's connection: %d %s", r.Code, r.Body)
		}
		if r := k.do(reader, "DELETE", "/v1/me/nwc/connections/"+c.ID, nil); r.Code != http.StatusNotFound {
			t.Fatalf("revoking another user's connection: %d %s", r.Code, r.Body)
		}

		// The admin's routes, over any wallet.
		r = k.do(admin, "POST", "/v1/nwc/connections", map[string]any{"wallet_id": aliceW.ID, "name": "by the admin"})
		if r.Code != http.StatusCreated {
			t.Fatalf("the admin's connection: %d %s", r.Code, r.Body)
		}
		var byAdmin nwc.Connection
		r.decode(t, &byAdmin)
		if byAdmin.WalletID != aliceW.ID || byAdmin.URI == "" {
			t.Fatalf("the admin's connection %+v", byAdmin)
		}
		k.do(admin, "GET", "/v1/nwc/connections?wallet_id="+aliceW.ID, nil).decode(t, &list)
		if len(list) != 2 {
			t.Fatalf("the admin lists %d of alice's connections", len(list))
		}
		if r := k.do(admin, "DELETE", "/v1/nwc/connections/"+byAdmin.ID, nil); r.Code != http.StatusNoContent {
			t.Fatalf("the admin revoking: %d %s", r.Code, r.Body)
		}
		if r := k.do(alice, "DELETE", "/v1/me/nwc/connections/"+c.ID, nil); r.Code != http.StatusNoContent {
			t.Fatalf("revoking: %d %s", r.Code, r.Body)
		}
		if r := k.do(alice, "GET", "/v1/me/nwc/connections/"+c.ID, nil); r.Code != http.StatusNotFound {
			t.Fatalf("a revoked connection: %d %s", r.Code, r.Body)
		}
	})
}

// TestNWCOffWithoutRelays refuses connections on a server with no relays.
func TestNWCOffWithoutRelays(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, func(c *nwc.Config) { c.Relays = nil })
	alice, _ := k.user("alice", 0, auth.AllScopes)
	r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "x"})
	if r.Code != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "nwc_disabled") {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
}

// TestBudgetedKeyCannotEscapeItsBudget: a key with a budget makes no key
// or connection that pays, which would pay outside its budget; one that
// only reads it may make.
func TestBudgetedKeyCannotEscapeItsBudget(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, _ := k.user("alice", 10_000, auth.AllScopes)
	r := k.do(alice, "POST", "/v1/me/api-keys", map[string]any{"name": "app",
		"permissions": []string{"read:wallet", "read:transaction", "write:transaction", "read:api_key", "write:api_key"},
		"budget":      map[string]any{"max_msat": 1_000, "renewal": "daily"}})
	if r.Code != http.StatusCreated {
		t.Fatalf("a budgeted key: %d %s", r.Code, r.Body)
	}
	var key struct{ Key string }
	r.decode(t, &key)
	if r := k.do(key.Key, "POST", "/v1/me/api-keys", map[string]any{"name": "escape", "permissions": []string{"write:transaction"}}); r.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a paying key made by a budgeted key: %d %s", r.Code, r.Body)
	}
	if r := k.do(key.Key, "POST", "/v1/me/nwc/connections", map[string]any{"name": "escape"}); r.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), "budget") {
		t.Fatalf("a paying connection made by a budgeted key: %d %s", r.Code, r.Body)
	}
	if r := k.do(key.Key, "POST", "/v1/me/nwc/connections", map[string]any{"name": "reader", "methods": []string{"get_balance"}}); r.Code != http.StatusCreated {
		t.Fatalf("a reading connection made by a budgeted key: %d %s", r.Code, r.Body)
	}
}
