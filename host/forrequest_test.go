package host_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestActingForARequest: a built-in serving a route acts for its caller,
// on the caller's wallet, with the caller's scopes ∩ its grant, and only
// with caller:act granted: without it every call acting for a caller is
// refused, whatever the scopes.
func TestActingForARequest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		alice := e.Wallet("alice", 0)
		bob := e.Wallet("bob", 10_000)
		m := &host.Manifest{Name: "router", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{"read:wallet", "write:transaction", host.CallerAct}}
		p, err := e.Registry.RegisterBuiltin(m, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		api := e.Registry.API()
		m2 := &host.Manifest{Name: "no-act", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{"read:wallet", "write:transaction"}}
		noAct, err := e.Registry.RegisterBuiltin(m2, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		forAlice := api.For(noAct).ActFor(&host.Principal{UserID: "alice", WalletID: alice.ID, Scopes: auth.AllScopes})
		if _, err := forAlice.Wallet(ctx); !isPermission(err) {
			t.Fatalf("acting for alice without caller:act: %v", err)
		}
		if _, err := forAlice.CreateInvoice(ctx, ledger.NewInvoice{AmountMsat: 1000}); !isPermission(err) {
			t.Fatalf("an invoice for alice without caller:act: %v", err)
		}
		asAlice := api.For(p).ActFor(&host.Principal{UserID: "alice", WalletID: alice.ID, Scopes: auth.NewScopes(auth.ReadWallet, auth.ReadTransaction)})
		w, err := asAlice.Wallet(ctx)
		if err != nil || w.ID != alice.ID {
			t.Fatalf("alice's wallet: %+v %v", w, err)
		}
		if _, err := asAlice.CreateInvoice(ctx, ledger.NewInvoice{AmountMsat: 1000}); !isPermission(err) {
			t.Fatalf("an invoice for a caller without write:transaction: %v", err)
		}
		if _, err := asAlice.Invoices(ctx, ledger.Filter{}); !isPermission(err) {
			t.Fatalf("read:transaction beyond the grant: %v", err)
		}
		asBob := api.For(p).ActFor(&host.Principal{UserID: "bob", WalletID: bob.ID, Scopes: auth.AllScopes})
		inv, err := asBob.CreateInvoice(ctx, ledger.NewInvoice{AmountMsat: 2000})
		if err != nil || inv.WalletID != bob.ID {
			t.Fatalf("bob's invoice: %+v %v", inv, err)
		}
		into, err := e.Ledger.CreateInvoice(ctx, alice.ID, ledger.NewInvoice{AmountMsat: 3000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := asBob.Pay(ctx, ledger.PayRequest{Input: into.Bolt11}); err != nil {
			t.Fatalf("bob pays: %v", err)
		}
		if b := e.Balance(bob.ID); b.AvailableMsat != 7000 {
			t.Fatalf("bob has %d", b.AvailableMsat)
		}
		// Bound to no wallet, the plugin itself has none to act on.
		if _, err := api.For(p).Wallet(ctx); !isPermission(err) {
			t.Fatalf("the plugin's own wallet: %v", err)
		}
		e.CheckLedger()
	})
}
