package auth_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

var admin = &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true}

// newKey makes a read:wallet key for user, expiring after expiry seconds
// unless expiry is 0.
func newKey(t *testing.T, keys *auth.Keys, user string, expiry int64) *auth.APIKey {
	t.Helper()
	req := auth.NewKey{UserID: user, Name: "k", Permissions: []string{"read:wallet"}}
	if expiry != 0 {
		req.Expiry = &expiry
	}
	k, err := keys.Create(context.Background(), admin, req)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// waitLive waits until keys may cache (on PostgreSQL, once its watch
// listens).
func waitLive(t *testing.T, keys *auth.Keys) {
	t.Helper()
	waitFor(t, "the key cache to be live", func() bool { return auth.CacheLive(keys) })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAuthenticateFindsTheOwnersWallet checks the one-query lookup: a live
// key answers its principal and its owner's wallet once there is one, and
// a revoked key answers nothing, wallet or not.
func TestAuthenticateFindsTheOwnersWallet(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		waitLive(t, keys)
		k := newKey(t, keys, "carol", 0)

		p, w, err := keys.Authenticate(ctx, k.Key)
		if err != nil || p.UserID != "carol" || p.KeyID != k.ID || !p.Scopes.Has(auth.ReadWallet) || p.Admin {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
		if w != "" {
			t.Fatalf("wallet before carol has one = %q, want none", w)
		}
		if auth.Cached(keys, k.Key) {
			t.Fatal("a key without a wallet was cached")
		}

		want, err := wallet.NewService(db).Ensure(ctx, "carol")
		if err != nil {
			t.Fatal(err)
		}
		p, w, err = keys.Authenticate(ctx, k.Key)
		if err != nil || p.UserID != "carol" || w != want.ID {
			t.Fatalf("Authenticate = %+v, %q, %v; want carol with wallet %s", p, w, err, want.ID)
		}

		if err := keys.Revoke(ctx, "carol", k.ID); err != nil {
			t.Fatal(err)
		}
		if p, w, err := keys.Authenticate(ctx, k.Key); !errors.Is(err, auth.ErrInvalidAPIKey) || p != nil || w != "" {
			t.Fatalf("revoked key: %+v, %q, %v", p, w, err)
		}
		if _, _, err := keys.Authenticate(ctx, "hk_unknown"); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("unknown key: %v", err)
		}
	})
}

// TestCachedKeyStopsAtOnce checks that the cache of keys in use never
// outlives what it caches: a cached key stops working as soon as Revoke
// returns, at its expiry, and once its wallet is deleted.
func TestCachedKeyStopsAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		wallets := wallet.NewService(db)
		waitLive(t, keys)
		// cached authenticates secret until the cache holds it.
		cached := func(secret, wantWallet string) {
			t.Helper()
			for range 2 {
				_, w, err := keys.Authenticate(ctx, secret)
				if err != nil || w != wantWallet {
					t.Fatalf("Authenticate = %q, %v; want wallet %q", w, err, wantWallet)
				}
			}
			if !auth.Cached(keys, secret) {
				t.Fatal("the key is not cached")
			}
		}

		w, err := wallets.Ensure(ctx, "dave")
		if err != nil {
			t.Fatal(err)
		}
		k := newKey(t, keys, "dave", 0)
		cached(k.Key, w.ID)
		if err := keys.Revoke(ctx, "dave", k.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := keys.Authenticate(ctx, k.Key); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("revoked cached key: %v, want ErrInvalidAPIKey", err)
		}

		expiring := newKey(t, keys, "dave", 60)
		cached(expiring.Key, w.ID)
		keys.SetClock(func() time.Time { return time.Now().Add(61 * time.Second) })
		if _, _, err := keys.Authenticate(ctx, expiring.Key); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("expired cached key: %v, want ErrInvalidAPIKey", err)
		}
		keys.SetClock(time.Now)

		erin, err := wallets.Ensure(ctx, "erin")
		if err != nil {
			t.Fatal(err)
		}
		ek := newKey(t, keys, "erin", 0)
		cached(ek.Key, erin.ID)
		if err := wallets.Delete(ctx, erin.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := keys.Authenticate(ctx, ek.Key); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("after the wallet's deletion: %v, want ErrInvalidAPIKey (the deletion revokes it)", err)
		}
	})
}

// TestReplicasForgetRevokedKeys checks, on PostgreSQL, that a key revoked
// by another replica, or by hand in the database, stops working on a
// replica that caches it within the notification's delay; and that while
// a replica does not listen it caches nothing.
func TestReplicasForgetRevokedKeys(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	here, there := auth.NewKeys(db), auth.NewKeys(storetest.Replica(t, db))
	waitLive(t, there)
	w, err := wallet.NewService(db).Ensure(ctx, "frank")
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"Revoke", "SQL"} {
		k := newKey(t, here, "frank", 0)
		for range 2 {
			if _, got, err := there.Authenticate(ctx, k.Key); err != nil || got != w.ID {
				t.Fatalf("%s: Authenticate = %q, %v", how, got, err)
			}
		}
		if !auth.Cached(there, k.Key) {
			t.Fatalf("%s: the replica does not cache the key", how)
		}
		if how == "Revoke" {
			err = here.Revoke(ctx, "", k.ID)
		} else {
			_, err = db.W.ExecContext(ctx, "UPDATE api_keys SET revoked_at = now() WHERE id = ?", k.ID)
		}
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, how+" to reach the replica", func() bool {
			_, _, err := there.Authenticate(ctx, k.Key)
			return errors.Is(err, auth.ErrInvalidAPIKey)
		})
	}

	// The replica's listening connection ends: it stops caching, then
	// listens again and caches again.
	k := newKey(t, here, "frank", 0)
	if _, _, err := there.Authenticate(ctx, k.Key); err != nil || !auth.Cached(there, k.Key) {
		t.Fatalf("Authenticate = %v, cached %v", err, auth.Cached(there, k.Key))
	}
	var schema string
	if err := db.W.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	res, err := db.W.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query = ?`, fmt.Sprintf(`LISTEN "hearth_auth_%s"`, schema))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 { // here's and there's
		t.Fatalf("ended %d listening sessions, want 2", n)
	}
	waitFor(t, "the replica to stop caching", func() bool { return !auth.CacheLive(there) || !auth.Cached(there, k.Key) })
	waitLive(t, there)
	for range 2 {
		if _, _, err := there.Authenticate(ctx, k.Key); err != nil {
			t.Fatal(err)
		}
	}
	if !auth.Cached(there, k.Key) {
		t.Fatal("the replica does not cache again once it listens again")
	}
}
