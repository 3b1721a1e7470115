package cln_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
)

// The outside lnd keysends to Hearth's lightningd: one whose record 696969
// is alice's keysend id, with a boostagram (7629169), credits alice once
// (the stream's delivery, and the node's word read back as reconciliation
// would) with the boost intact — the guard plugin kept the records that
// lightningd's keysend plugin drops; one that names no wallet credits the
// operator's; one received while Hearth was stopped is credited when it
// starts again, and none of the node's keysends from before Hearth's
// first start with the database (the other database's) is. On SQLite and
// PostgreSQL.
func TestKeysendToCoreLightning(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		node, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		h := &ledgertest.Books{T: t, DB: db}
		stop := h.Start(node, &withdraw.Config{}, nil)
		defer func() { stop() }()
		alice, operator := h.Wallet("alice"), h.Wallet(ledger.DefaultOperator)
		// The guard plugin keeps the records: wait until it runs (Hearth
		// has lightningd start it).
		poll.Until(t, 30*time.Second, func() error {
			_, err := os.Stat(filepath.Join(filepath.Dir(net.Hearth.RPCPath()), "hearth-guard.sock"))
			return err
		})
		id, err := h.Led.KeysendID(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		boost := []byte(`{"action":"boost","value_msat_total":21000,"app_name":"Fountain","message":"great show"}`)
		hash, err := net.LND.Keysend(ctx, net.Hearth.Pubkey, 21_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id), 7629169: boost})
		if err != nil {
			t.Fatal(err)
		}
		credited := func(walletID string, want int64) {
			t.Helper()
			poll.Until(t, 30*time.Second, func() error {
				if got := h.Balance(walletID).AvailableMsat; got != want {
					return fmt.Errorf("available %d msat, want %d", got, want)
				}
				return nil
			})
		}
		credited(alice, 21_000)
		invs, err := h.Led.Invoices(ctx, ledger.Filter{PaymentHash: hash})
		if err != nil || len(invs) != 1 {
			t.Fatalf("invoices of the keysend: %d (%v)", len(invs), err)
		}
		inv := invs[0]
		var shown map[string]string
		if err := json.Unmarshal(inv.LnInvoice.TLVRecords, &shown); err != nil {
			t.Fatalf("tlv_records %s: %v", inv.LnInvoice.TLVRecords, err)
		}
		if got, err := hex.DecodeString(shown["7629169"]); err != nil || !bytes.Equal(got, boost) ||
			!inv.Keysend || inv.WalletID != alice || inv.Status != ledger.StatusSettled || inv.LnInvoice.PaymentPreimage == nil {
			t.Fatalf("alice's keysend invoice %+v, records %v", inv, shown)
		}
		st, err := node.LookupInvoice(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Keysend || !st.Settled || !bytes.Equal(st.CustomRecords[7629169], boost) ||
			string(st.CustomRecords[ledger.KeysendIDRecord]) != id || st.CustomRecords[ledger.KeysendPreimageRecord] != nil {
			t.Fatalf("the node's word on the keysend: %+v", st)
		}
		if applied, err := h.Led.SettleInvoice(ctx, *st); err != nil || applied {
			t.Fatalf("delivered again: applied %v (%v), want neither", applied, err)
		}

		if _, err := net.LND.Keysend(ctx, net.Hearth.Pubkey, 3_000, map[uint64][]byte{7629169: boost}); err != nil {
			t.Fatal(err)
		}
		credited(operator, 3_000)
		if b := h.Balance(alice); b.AvailableMsat != 21_000 || b.ReceivedMsat != 21_000 {
			t.Fatalf("alice: %+v", b)
		}

		// One received while Hearth is stopped is credited when it starts
		// again: the ledger reads the node's invoices from where it got to.
		stop()
		if _, err := net.LND.Keysend(ctx, net.Hearth.Pubkey, 5_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id)}); err != nil {
			t.Fatal(err)
		}
		stop = h.Start(node, &withdraw.Config{}, nil)
		credited(alice, 26_000)
		if b := h.Balance(operator); b.AvailableMsat != 3_000 {
			t.Fatalf("the operator at the end: %+v", b)
		}
		h.Check()
	})
}
