package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

func TestSetupFlow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		var setup auth.Setup
		e.do("GET", "/v1/system/setup", nil).expect(t, 200).decodeJSON(t, &setup)
		if setup.WelcomeComplete || setup.SignUpComplete {
			t.Fatalf("fresh setup = %+v", setup)
		}
		e.do("POST", "/v1/system/mark-welcome-complete", nil).expect(t, 204)
		e.do("POST", "/v1/system/mark-welcome-complete", nil).expect(t, 204)
		e.do("GET", "/v1/system/setup", nil).expect(t, 200).decodeJSON(t, &setup)
		if !setup.WelcomeComplete || setup.SignUpComplete {
			t.Fatalf("after welcome: %+v", setup)
		}

		var tok struct{ Token string }
		e.do("POST", "/v1/auth/sign-up", `{"password":"correct horse"}`).expect(t, 200).decodeJSON(t, &tok)
		if tok.Token == "" {
			t.Fatal("sign-up returned no token")
		}
		if p := e.do("POST", "/v1/auth/sign-up", `{"password":"another one"}`).expect(t, 409).problem(t); p.Code != "already_signed_up" {
			t.Fatalf("second sign-up code = %s", p.Code)
		}
		e.do("GET", "/v1/system/setup", nil).expect(t, 200).decodeJSON(t, &setup)
		if !setup.SignUpComplete {
			t.Fatal("sign_up_complete still false")
		}

		// The sign-up token is the admin's, with every scope.
		var me wallet.Wallet
		e.do("GET", "/v1/me", nil, bearer(tok.Token)...).expect(t, 200).decodeJSON(t, &me)
		if me.UserID != auth.AdminUserID || me.ID == "" {
			t.Fatalf("me = %+v", me)
		}
		e.do("GET", "/v1/wallets", nil, bearer(tok.Token)...).expect(t, 200)

		e.do("POST", "/v1/auth/sign-in", `{"password":"wrong password"}`).expect(t, 401).problem(t)
		var signIn struct{ Token string }
		e.do("POST", "/v1/auth/sign-in", `{"password":"correct horse"}`).expect(t, 200).decodeJSON(t, &signIn)
		e.do("GET", "/v1/me/balance", nil, bearer(signIn.Token)...).expect(t, 200)

		// Changing the password needs the current one and ends old sessions.
		e.do("POST", "/v1/auth/change-password", `{"current_password":"nope nope","new_password":"battery staple"}`,
			bearer(signIn.Token)...).expect(t, 422)
		e.do("POST", "/v1/auth/change-password", `{"current_password":"correct horse","new_password":"short"}`,
			bearer(signIn.Token)...).expect(t, 422)
		e.do("POST", "/v1/auth/change-password", `{"current_password":"correct horse","new_password":"battery staple"}`,
			bearer(signIn.Token)...).expect(t, 204)
		e.do("GET", "/v1/me", nil, bearer(signIn.Token)...).expect(t, 401)
		e.do("POST", "/v1/auth/sign-in", `{"password":"correct horse"}`).expect(t, 401)
		e.do("POST", "/v1/auth/sign-in", `{"password":"battery staple"}`).expect(t, 200).decodeJSON(t, &signIn)
		e.do("GET", "/v1/me", nil, bearer(signIn.Token)...).expect(t, 200)
	})
}

func TestSignInBeforeSignUpIs401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	e.do("POST", "/v1/auth/sign-in", `{"password":"whatever1"}`).expect(t, 401).problem(t)
}

func TestTokenExpiry(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	e := newEnv(t, db, func(c *config.Config, d *api.Deps) {
		c.Auth.TokenExpiry = config.Duration{Duration: time.Hour}
	})
	// A token issued two hours ago with a one-hour lifetime has expired.
	old, err := auth.NewTokens(t.Context(), db, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	old.SetClock(func() time.Time { return time.Now().Add(-2 * time.Hour) })
	expired, err := old.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	if p := e.do("GET", "/v1/me", nil, bearer(expired)...).expect(t, 401).problem(t); p.Code != "invalid_token" {
		t.Fatalf("code = %s", p.Code)
	}
	// Issued 59 minutes ago: still good.
	old.SetClock(func() time.Time { return time.Now().Add(-59 * time.Minute) })
	fresh, _ := old.Issue(auth.AdminUserID, auth.AllScopes)
	e.do("GET", "/v1/me", nil, bearer(fresh)...).expect(t, 200)
	// The configured lifetime is what sign-in issues.
	if _, err := e.tokens.Verify(t.Context(), e.adminToken()); err != nil {
		t.Fatal(err)
	}
}

func TestAPIKeyLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		admin := bearer(e.adminToken())

		var created auth.APIKey
		e.do("POST", "/v1/me/api-keys", map[string]any{
			"name":        "pos terminal",
			"description": "the till",
			"permissions": []string{"read:wallet", "write:api_key", "read:api_key"},
			"expiry":      3600,
		}, admin...).expect(t, 201).decodeJSON(t, &created)
		if created.Key == "" || created.ID == "" || created.ExpiresAt == nil || created.UserID != auth.AdminUserID {
			t.Fatalf("created = %+v", created)
		}
		key := apiKey(created.Key)

		// The key works, with its own scopes only.
		e.do("GET", "/v1/me/balance", nil, key...).expect(t, 200)
		e.do("POST", "/v1/wallets", `{"user_id":"zed"}`, key...).expect(t, 403)

		// Listing and reading never show the secret again.
		var list []map[string]any
		e.do("GET", "/v1/me/api-keys", nil, key...).expect(t, 200).decodeJSON(t, &list)
		if len(list) != 1 || list[0]["id"] != created.ID {
			t.Fatalf("list = %v", list)
		}
		if _, has := list[0]["key"]; has {
			t.Fatal("list shows the key")
		}
		var one map[string]any
		e.do("GET", "/v1/me/api-keys/"+created.ID, nil, key...).expect(t, 200).decodeJSON(t, &one)
		if _, has := one["key"]; has || one["name"] != "pos terminal" {
			t.Fatalf("get = %v", one)
		}

		// Subset rule: the key may make keys only within its own scopes.
		p := e.do("POST", "/v1/me/api-keys", `{"name":"x","permissions":["read:wallet","write:transaction"]}`, key...).expect(t, 422).problem(t)
		if p.Code != "permission_exceeded" {
			t.Fatalf("code = %s", p.Code)
		}
		var child auth.APIKey
		e.do("POST", "/v1/me/api-keys", `{"name":"child","permissions":["read:wallet"]}`, key...).expect(t, 201).decodeJSON(t, &child)
		e.do("GET", "/v1/me/balance", nil, apiKey(child.Key)...).expect(t, 200)

		// Expiry bounds.
		e.do("POST", "/v1/me/api-keys", `{"name":"x","permissions":["read:wallet"],"expiry":31536001}`, admin...).expect(t, 422)
		e.do("POST", "/v1/me/api-keys", `{"name":"x","permissions":["read:wallet"],"expiry":0}`, admin...).expect(t, 422)
		e.do("POST", "/v1/me/api-keys", `{"name":"x","permissions":["read:wallet"],"expiry":31536000}`, admin...).expect(t, 201)

		// Revocation takes effect at once, and twice is 404.
		e.do("DELETE", "/v1/me/api-keys/"+child.ID, nil, key...).expect(t, 204)
		e.do("GET", "/v1/me/balance", nil, apiKey(child.Key)...).expect(t, 401)
		e.do("DELETE", "/v1/me/api-keys/"+child.ID, nil, key...).expect(t, 404)
		e.do("GET", "/v1/me/api-keys/"+child.ID, nil, key...).expect(t, 404)

		// Another user's key cannot see or revoke this user's keys.
		bob := apiKey(e.makeKey("bob", auth.AllScopes))
		e.do("GET", "/v1/me/api-keys/"+created.ID, nil, bob...).expect(t, 404)
		e.do("DELETE", "/v1/me/api-keys/"+created.ID, nil, bob...).expect(t, 404)
		e.do("GET", "/v1/me/balance", nil, key...).expect(t, 200)

		// The admin sees and revokes any key.
		var all []auth.APIKey
		e.do("GET", "/v1/api-keys?user_id=bob", nil, admin...).expect(t, 200).decodeJSON(t, &all)
		if len(all) != 1 || all[0].UserID != "bob" {
			t.Fatalf("admin list for bob = %+v", all)
		}
		e.do("DELETE", "/v1/api-keys/"+all[0].ID, nil, admin...).expect(t, 204)
		e.do("GET", "/v1/me", nil, bob...).expect(t, 401)
	})
}

func TestExpiredAPIKeyIs401(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	var created auth.APIKey
	e.do("POST", "/v1/me/api-keys", `{"name":"short","permissions":["read:wallet"],"expiry":60}`,
		bearer(e.adminToken())...).expect(t, 201).decodeJSON(t, &created)
	e.do("GET", "/v1/me/balance", nil, apiKey(created.Key)...).expect(t, 200)
	e.keys.SetClock(func() time.Time { return time.Now().Add(61 * time.Second) })
	if p := e.do("GET", "/v1/me/balance", nil, apiKey(created.Key)...).expect(t, 401).problem(t); p.Code != "invalid_api_key" {
		t.Fatalf("code = %s", p.Code)
	}
}

func TestAdminKeysForOtherUsers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		admin := bearer(e.adminToken())
		e.do("POST", "/v1/api-keys", `{"name":"carol's","permissions":["read:wallet"]}`, admin...).expect(t, 400)
		var k auth.APIKey
		e.do("POST", "/v1/api-keys", `{"user_id":"carol","name":"carol's","permissions":["read:wallet","write:wallet"]}`, admin...).
			expect(t, 201).decodeJSON(t, &k)
		// Carol's key reaches her own wallet, never the admin routes.
		var me wallet.Wallet
		e.do("GET", "/v1/me", nil, apiKey(k.Key)...).expect(t, 200).decodeJSON(t, &me)
		if me.UserID != "carol" {
			t.Fatalf("carol's key sees %s", me.UserID)
		}
		if p := e.do("GET", "/v1/wallets", nil, apiKey(k.Key)...).expect(t, http.StatusForbidden).problem(t); p.Code != "admin_only" {
			t.Fatalf("code = %s", p.Code)
		}
		// The admin's own key is an admin key.
		var mine auth.APIKey
		e.do("POST", "/v1/api-keys", `{"user_id":"admin","name":"ops","permissions":["read:wallet"]}`, admin...).
			expect(t, 201).decodeJSON(t, &mine)
		e.do("GET", "/v1/wallets", nil, apiKey(mine.Key)...).expect(t, 200)
	})
}

func TestWalletAdminRoutes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		admin := bearer(e.adminToken())
		var w wallet.Wallet
		e.do("POST", "/v1/wallets", `{"user_id":"dave","label":"Dave's shop"}`, admin...).expect(t, 201).decodeJSON(t, &w)
		if w.UserID != "dave" || w.Label == nil || *w.Label != "Dave's shop" {
			t.Fatalf("created %+v", w)
		}
		e.do("POST", "/v1/wallets", `{"user_id":"dave"}`, admin...).expect(t, 409)
		var got wallet.Wallet
		e.do("GET", "/v1/wallets/"+w.ID, nil, admin...).expect(t, 200).decodeJSON(t, &got)
		if got.ID != w.ID {
			t.Fatalf("got %+v", got)
		}
		var list []wallet.Wallet
		e.do("GET", "/v1/wallets?limit=1&order_direction=Asc", nil, admin...).expect(t, 200).decodeJSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("limit=1 gave %d", len(list))
		}
		e.do("GET", "/v1/wallets?limit=1&offset=1&order_direction=Asc", nil, admin...).expect(t, 200).decodeJSON(t, &list)
		if len(list) != 1 || list[0].ID != w.ID {
			t.Fatalf("second page = %+v (want dave's)", list)
		}
		// Dave's key sees that wallet as his own.
		var me wallet.Wallet
		e.do("GET", "/v1/me", nil, apiKey(e.makeKey("dave", auth.NewScopes(auth.ReadWallet)))...).expect(t, 200).decodeJSON(t, &me)
		if me.ID != w.ID {
			t.Fatalf("dave's wallet %s, want %s", me.ID, w.ID)
		}
		e.do("DELETE", "/v1/wallets/"+w.ID, nil, admin...).expect(t, 204)
		e.do("GET", "/v1/wallets/"+w.ID, nil, admin...).expect(t, 404)
	})
}
