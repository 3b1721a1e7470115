package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// keysend:read: a plugin without it is refused; one with it reads any
// wallet's keysend address — the node's key, the wallet's keysend id as
// the ledger keeps it — with no permission scope; on the embedded node,
// which no other node reaches, the ledger answers no_external_node.
func TestKeysendReadCapability(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := plugintest.New(t, db, plugintest.Options{NoRun: true,
			Node: plugintest.Reachable})
		alice := e.Wallet("alice", 0)
		if _, err := builtin(t, e, "no-keysend", "", "read:wallet", "read:transaction").KeysendAddress(ctx, alice.ID); !isPermission(err) {
			t.Fatalf("a keysend address without %s: %v", host.KeysendRead, err)
		}
		got, err := builtin(t, e, "keysend-reader", "", host.KeysendRead).KeysendAddress(ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		id, err := e.Ledger.KeysendID(ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		info, err := e.Node.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if *got != (ledger.KeysendAddress{Pubkey: info.Pubkey, CustomKey: "696969", CustomValue: id}) {
			t.Fatalf("alice's keysend address %+v, her id %q, the node %s", got, id, info.Pubkey)
		}
		if _, err := builtin(t, e, "reader-of-none", "", host.KeysendRead).KeysendAddress(ctx, "no-such-wallet"); !errors.Is(err, ledger.ErrWalletNotFound) {
			t.Fatalf("a missing wallet's keysend address: %v", err)
		}

		local := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
		bob := local.Wallet("bob", 0)
		if _, err := builtin(t, local, "local-reader", "", host.KeysendRead).KeysendAddress(ctx, bob.ID); !errors.Is(err, ledger.ErrNoExternalNode) {
			t.Fatalf("on the embedded node: %v, want no_external_node", err)
		}
	})
}
