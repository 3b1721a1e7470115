package cln_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
)

// The outside lnd keysends to Hearth's lightningd:
// ledgertest.ReceiveKeysends — one naming alice with a boost, whose
// records the guard plugin kept (lightningd's keysend plugin drops them),
// one naming no wallet, one while Hearth is stopped. On SQLite and
// PostgreSQL.
func TestKeysendToCoreLightning(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		node, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		h := &ledgertest.Books{T: t, DB: db}
		stop := h.Start(node, &withdraw.Config{}, nil)
		defer func() { stop() }()
		// The guard plugin keeps the records: wait until it runs (Hearth
		// has lightningd start it).
		poll.Until(t, 30*time.Second, func() error {
			_, err := os.Stat(filepath.Join(filepath.Dir(net.Hearth.RPCPath()), "hearth-guard.sock"))
			return err
		})
		pay := func(ctx context.Context, msat int64, records map[uint64][]byte) (string, error) {
			return net.LND.Keysend(ctx, net.Hearth.Pubkey, msat, records)
		}
		h.ReceiveKeysends(t, node, pay, func() { stop() }, func() { stop = h.Start(node, &withdraw.Config{}, nil) })
	})
}
