package auth_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// TestDeleteRevokesTheOwnersKeys: deleting a wallet revokes its owner's
// API keys in the same transaction, so that they stop working at once,
// cached or not, here and (on PostgreSQL) on another replica; a wallet
// that is kept keeps its keys, and other users' keys work on.
func TestDeleteRevokesTheOwnersKeys(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := wallet.NewService(db)
		keys := []*auth.Keys{auth.NewKeys(db)}
		if db.Dialect == store.Postgres {
			keys = append(keys, auth.NewKeys(storetest.Replica(t, db)))
		}
		for _, k := range keys {
			waitLive(t, k)
		}
		alice, err := svc.Ensure(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		bob, err := svc.Ensure(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		aliceKey, bobKey := newKey(t, keys[0], "alice", 0).Key, newKey(t, keys[0], "bob", 0).Key
		for _, k := range keys {
			for range 2 { // the second from the cache
				if _, got, err := k.Authenticate(ctx, aliceKey); err != nil || got != alice.ID {
					t.Fatalf("before: Authenticate = %q, %v", got, err)
				}
			}
			if !auth.Cached(k, aliceKey) {
				t.Fatal("the key is not cached")
			}
		}

		// A kept wallet keeps its keys.
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = 5, received_msat = 5 WHERE id = ?", alice.ID); err != nil {
			t.Fatal(err)
		}
		if err := svc.Delete(ctx, alice.ID); !errors.Is(err, wallet.ErrNotEmpty) {
			t.Fatalf("Delete of a funded wallet: %v", err)
		}
		if _, got, err := keys[0].Authenticate(ctx, aliceKey); err != nil || got != alice.ID {
			t.Fatalf("a kept wallet's key: %q, %v", got, err)
		}
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = 0 WHERE id = ?", alice.ID); err != nil {
			t.Fatal(err)
		}

		if err := svc.Delete(ctx, alice.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := keys[0].Authenticate(ctx, aliceKey); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("a deleted wallet's key, at once: %v", err)
		}
		for _, k := range keys[1:] {
			waitFor(t, "the deletion to reach the replica", func() bool {
				_, _, err := k.Authenticate(ctx, aliceKey)
				return errors.Is(err, auth.ErrInvalidAPIKey)
			})
		}
		live, err := keys[0].List(ctx, "alice", store.Page{})
		if err != nil || len(live) != 0 {
			t.Fatalf("alice's live keys: %d, %v", len(live), err)
		}
		for _, k := range keys {
			if _, got, err := k.Authenticate(ctx, bobKey); err != nil || got != bob.ID {
				t.Fatalf("another user's key: %q, %v", got, err)
			}
		}
	})
}
