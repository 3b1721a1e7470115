package api_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// remoteNode is the embedded node as if it reached other nodes: its
// Local mark hidden, for a ledger that hands out keysend addresses.
type remoteNode struct{ ledger.Node }

// GET /v1/me/keysend answers the node's key and the caller's keysend id,
// the same at each ask and another for each wallet; a keysend to the node
// naming that id credits the caller. The embedded node, which no other
// node reaches, answers 422 no_external_node.
func TestMyKeysendAddress(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, nil)
		if got := e.do("GET", "/v1/me/keysend", nil, e.user("carol").key...).expect(t, 422).problem(t).Code; got != "no_external_node" {
			t.Fatalf("on the embedded node: %s, want no_external_node", got)
		}
		var l *ledger.Service
		e = newEnv(t, db, func(_ *config.Config, d *api.Deps) {
			l = ledger.New(db, remoteNode{d.Ledger.Node()}, nil, ledger.Config{}, nil)
			d.Ledger = l
		})
		alice, bob := e.user("alice"), e.user("bob")
		var a1, a2, b ledger.KeysendAddress
		e.do("GET", "/v1/me/keysend", nil, alice.key...).expect(t, 200).decodeJSON(t, &a1)
		e.do("GET", "/v1/me/keysend", nil, alice.key...).expect(t, 200).decodeJSON(t, &a2)
		e.do("GET", "/v1/me/keysend", nil, bob.key...).expect(t, 200).decodeJSON(t, &b)
		info, err := e.ledger.Node().Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if a1.Pubkey != info.Pubkey || a1.CustomKey != "696969" || a1.CustomValue == "" || a2 != a1 ||
			b.CustomValue == a1.CustomValue || b.Pubkey != a1.Pubkey {
			t.Fatalf("alice's keysend address %+v, then %+v; bob's %+v", a1, a2, b)
		}

		var pre [32]byte
		if _, err := rand.Read(pre[:]); err != nil {
			t.Fatal(err)
		}
		hash := sha256.Sum256(pre[:])
		if applied, err := l.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: hex.EncodeToString(hash[:]),
			Preimage: hex.EncodeToString(pre[:]), AmountMsat: 7_000, Settled: true, Keysend: true,
			CustomRecords: map[uint64][]byte{696969: []byte(a1.CustomValue), 7629169: []byte(`{"action":"boost"}`)}}); err != nil || !applied {
			t.Fatalf("the keysend: applied %v (%v)", applied, err)
		}
		if got := alice.balance(t).AvailableMsat; got != 7_000 {
			t.Fatalf("alice's balance %d, want 7000", got)
		}
		var invs []ledger.Invoice
		e.do("GET", "/v1/me/invoices", nil, alice.key...).expect(t, 200).decodeJSON(t, &invs)
		if len(invs) != 1 || !invs[0].Keysend || string(invs[0].LnInvoice.TLVRecords) == "" {
			t.Fatalf("alice's invoices: %+v", invs)
		}
	})
}
