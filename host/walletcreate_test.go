package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestCreateWallet: a plugin makes a wallet for a new user only with
// wallet:create and write:wallet granted, while serving the admin; a user
// who has a wallet keeps it (wallet.ErrExists).
func TestCreateWallet(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		alice := e.Wallet("alice", 0)
		register := func(name string, scopes ...string) *host.Plugin {
			p, err := e.Registry.RegisterBuiltin(&host.Manifest{Name: name, Version: "1.0.0", ABI: host.ABIVersion, Scopes: scopes}, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		maker := register("maker", "write:wallet", host.CallerAct, host.WalletCreate)
		noCap := register("nocap", "write:wallet", host.CallerAct)
		noAct := register("noact", "write:wallet", host.WalletCreate)
		noScope := register("noscope", host.CallerAct, host.WalletCreate)
		api := e.Registry.API()
		admin := &host.Principal{UserID: auth.AdminUserID, Admin: true, Scopes: auth.AllScopes}
		label := "game"

		w, err := api.For(maker).ActFor(admin).CreateWallet(ctx, "app-game", &label)
		if err != nil || w.UserID != "app-game" || w.Label == nil || *w.Label != "game" {
			t.Fatalf("the admin's sub-wallet: %+v %v", w, err)
		}
		for name, c := range map[string]*host.Caller{
			"without wallet:create":  api.For(noCap).ActFor(admin),
			"without caller:act":     api.For(noAct).ActFor(admin),
			"without write:wallet":   api.For(noScope).ActFor(admin),
			"for no caller":          api.For(maker),
			"for a user not admin":   api.For(maker).ActFor(&host.Principal{UserID: "alice", WalletID: alice.ID, Scopes: auth.AllScopes}),
			"for an admin read-only": api.For(maker).ActFor(&host.Principal{UserID: auth.AdminUserID, Admin: true, Scopes: auth.NewScopes(auth.ReadWallet)}),
		} {
			if _, err := c.CreateWallet(ctx, "app-"+name, nil); !isPermission(err) {
				t.Fatalf("a wallet %s: %v", name, err)
			}
		}
		if _, err := api.For(maker).ActFor(admin).CreateWallet(ctx, "alice", nil); !errors.Is(err, wallet.ErrExists) {
			t.Fatalf("a second wallet of alice: %v", err)
		}
		if got, err := e.Wallets.Get(ctx, alice.ID); err != nil || got.UserID != "alice" {
			t.Fatalf("alice's wallet after: %+v %v", got, err)
		}
	})
}
