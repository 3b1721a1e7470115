package lnd_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The peer keysends to Hearth's lnd: ledgertest.ReceiveKeysends — one
// naming alice with a boost, one naming no wallet, one while Hearth is
// stopped. On SQLite and PostgreSQL.
func TestKeysendFromThePeer(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h := newHearth(t, net, db)
		pay := func(ctx context.Context, msat int64, records map[uint64][]byte) (string, error) {
			return net.Peer.Keysend(ctx, net.Hearth.Pubkey, msat, records)
		}
		h.Books.ReceiveKeysends(t, h.node, pay, func() { h.stop() }, h.start)
	})
}
