package host_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestReceiveOnly is the receive-only power of a built-in bound to no
// wallet (the LNURL-pay callback's): with write:transaction and
// wallet:receive-any it makes invoices in any wallet and reads them back
// with read:transaction and wallet:read-any, and it can pay from none.
func TestReceiveOnly(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		alice := e.Wallet("alice", 10_000)
		bob := e.Wallet("bob", 0)
		recv := builtin(t, e, "receiver", "", "write:transaction", "read:transaction", host.ReceiveAny, host.ReadAny)
		inv, err := recv.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 2000})
		if err != nil || inv.WalletID != bob.ID {
			t.Fatalf("receive into bob: %+v %v", inv, err)
		}
		got, err := recv.ReceivedInvoice(ctx, bob.ID, inv.ID)
		if err != nil || got.ID != inv.ID {
			t.Fatalf("reading it back: %+v %v", got, err)
		}
		if _, err := recv.Pay(ctx, ledger.PayRequest{Input: inv.Bolt11}); !isPermission(err) {
			t.Fatalf("a receive-only built-in paid: %v", err)
		}
		e.Pay(alice.ID, inv.Bolt11)
		if b := e.Balance(alice.ID); b.AvailableMsat != 8000 {
			t.Fatalf("alice has %d", b.AvailableMsat)
		}
		reader := builtin(t, e, "reader2", "", "read:transaction", host.ReceiveAny)
		if _, err := reader.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 2000}); !isPermission(err) {
			t.Fatalf("receive without write:transaction: %v", err)
		}
		writer := builtin(t, e, "writer2", "", "write:transaction", host.ReadAny)
		if _, err := writer.ReceivedInvoice(ctx, bob.ID, inv.ID); !isPermission(err) {
			t.Fatalf("reading an invoice without read:transaction: %v", err)
		}
	})
}
