package api_test

import (
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// TestDeletedWalletsKeysAre401: once the admin deletes an empty wallet,
// its owner's API key answers 401 at once (it was cached by the request
// before) and never creates a new wallet; another user's key works on.
func TestDeletedWalletsKeysAre401(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		admin := bearer(e.adminToken())
		var w wallet.Wallet
		e.do("POST", "/v1/wallets", `{"user_id":"erin"}`, admin...).expect(t, 201).decodeJSON(t, &w)
		erin := apiKey(e.makeKey("erin", auth.NewScopes(auth.ReadWallet, auth.WriteTransaction)))
		frank := apiKey(e.makeKey("frank", auth.NewScopes(auth.ReadWallet)))
		var me wallet.Wallet
		e.do("GET", "/v1/me", nil, erin...).expect(t, 200).decodeJSON(t, &me)
		e.do("GET", "/v1/me", nil, frank...).expect(t, 200)
		if me.ID != w.ID {
			t.Fatalf("erin's key sees wallet %s, want %s", me.ID, w.ID)
		}

		e.do("DELETE", "/v1/wallets/"+w.ID, nil, admin...).expect(t, 204)
		if p := e.do("GET", "/v1/me", nil, erin...).expect(t, 401).problem(t); p.Code != "invalid_api_key" {
			t.Fatalf("code = %s", p.Code)
		}
		e.do("POST", "/v1/me/invoices", `{"amount_msat":1000}`, erin...).expect(t, 401).problem(t)
		var list []wallet.Wallet
		e.do("GET", "/v1/wallets", nil, admin...).expect(t, 200).decodeJSON(t, &list)
		for _, got := range list {
			if got.UserID == "erin" {
				t.Fatalf("a deleted wallet's key created wallet %s", got.ID)
			}
		}
		e.do("GET", "/v1/me", nil, frank...).expect(t, 200)
	})
}
