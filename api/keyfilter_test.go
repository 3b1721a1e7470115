package api_test

import (
	"slices"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestAdminListsByKey: the admin's payments filtered by an API key list
// every payment the key made: a user's key, read through its wallet, and
// the admin's own key, which pays from any wallet (POST /v1/payments), in
// every wallet it paid from; a key that paid nothing lists nothing.
func TestAdminListsByKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob, carol := e.user("alice"), e.user("bob"), e.user("carol")
		alice.fund(t, 1_000_000)
		bob.fund(t, 1_000_000)
		admin := bearer(e.adminToken())
		var adminKey, idle struct{ ID, Key string }
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "ops", "permissions": auth.AllScopes.Names()}, admin...).
			expect(t, 201).decodeJSON(t, &adminKey)
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "idle", "permissions": auth.AllScopes.Names()}, alice.key...).
			expect(t, 201).decodeJSON(t, &idle)
		var byAdmin, byAlice []string
		var aliceKey string
		for _, from := range []*user{alice, bob, alice} {
			var p struct{ ID string }
			e.do("POST", "/v1/payments", map[string]any{"wallet_id": from.id, "input": carol.invoice(t, 1000).LnInvoice.Bolt11},
				apiKey(adminKey.Key)...).expect(t, 201).decodeJSON(t, &p)
			byAdmin = append(byAdmin, p.ID)
		}
		for range 2 {
			var p struct {
				ID       string
				APIKeyID string `json:"api_key_id"`
			}
			alice.pay(carol.invoice(t, 2000).LnInvoice.Bolt11).expect(t, 201).decodeJSON(t, &p)
			byAlice, aliceKey = append(byAlice, p.ID), p.APIKeyID
		}
		for _, c := range []struct {
			key  string
			want []string
		}{{adminKey.ID, byAdmin}, {aliceKey, byAlice}, {idle.ID, nil}} {
			rows, _ := e.list(t, "/v1/payments?limit=100&order_direction=Asc&api_key_id="+c.key, admin...)
			if got := idsOf(rows); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("the payments of key %s: %q, want %q", c.key, got, c.want)
			}
		}
	})
}
