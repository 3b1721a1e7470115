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
// on the caller's wallet, with the caller's scopes ∩ its grant.
func TestActingForARequest(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		alice := e.Wallet("alice", 0)
		bob := e.Wallet("bob", 10_000)
		m := &host.Manifest{Name: "router", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{"read:wallet", "write:transaction"}}
		p, err := e.Registry.RegisterBuiltin(m, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		api := e.Registry.API()
		asAlice := api.ForRequest(p, &host.Principal{UserID: "alice", WalletID: alice.ID, Scopes: auth.NewScopes(auth.ReadWallet, auth.ReadTransaction)})
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
		asBob := api.ForRequest(p, &host.Principal{UserID: "bob", WalletID: bob.ID, Scopes: auth.AllScopes})
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
