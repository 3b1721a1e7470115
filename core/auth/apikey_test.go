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

// TestAuthenticateReadsTheOwnersWallet checks the one-query lookup: a live
// key answers its principal and its owner's wallet once there is one, and
// a revoked key answers nothing, wallet or not.
func TestAuthenticateReadsTheOwnersWallet(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys := auth.NewKeys(db)
		admin := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true}
		k, err := keys.Create(ctx, admin, auth.NewKey{UserID: "carol", Name: "k", Permissions: []string{"read:wallet"}})
		if err != nil {
			t.Fatal(err)
		}

		p, w, err := keys.Authenticate(ctx, k.Key)
		if err != nil || p.UserID != "carol" || p.KeyID != k.ID || !p.Scopes.Has(auth.ReadWallet) || p.Admin {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
		if w != nil {
			t.Fatalf("wallet before carol has one = %+v, want nil", w)
		}

		want, err := wallet.NewService(db).Ensure(ctx, "carol")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.W.NewUpdate().Model((*wallet.Wallet)(nil)).Set("available_msat = 7").Set("received_msat = 7").
			Where("id = ?", want.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		p, w, err = keys.Authenticate(ctx, k.Key)
		if err != nil || p.UserID != "carol" {
			t.Fatalf("Authenticate = %+v, %v", p, err)
		}
		if w == nil || w.ID != want.ID || w.UserID != "carol" || w.Balance.AvailableMsat != 7 || w.Balance.ReceivedMsat != 7 ||
			!w.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("wallet = %+v, want %s with 7 msat", w, want.ID)
		}

		if err := keys.Revoke(ctx, "carol", k.ID); err != nil {
			t.Fatal(err)
		}
		if p, w, err := keys.Authenticate(ctx, k.Key); !errors.Is(err, auth.ErrInvalidAPIKey) || p != nil || w != nil {
			t.Fatalf("revoked key: %+v, %+v, %v", p, w, err)
		}
		if _, _, err := keys.Authenticate(ctx, "hk_unknown"); !errors.Is(err, auth.ErrInvalidAPIKey) {
			t.Fatalf("unknown key: %v", err)
		}
	})
}
