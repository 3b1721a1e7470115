package outbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A credited on-chain deposit is an onchain.deposit event, not an
// invoice.settled one; each filter reads its own kind, and a deposit seen
// but not yet credited has no event.
func TestDepositIsItsOwnEvent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		out := ledger.BitcoinOutput{TxID: strings.Repeat("ab", 32), Vout: 1, Address: "bcrt1qdeposit", AmountSat: 5000}
		if _, err := f.ledger.Deposit(ctx, f.bob, out, false); err != nil {
			t.Fatal(err)
		}
		inv, _ := f.payInternal(t, 1000)
		out.Confirmations = 1
		d, err := f.ledger.Deposit(ctx, f.bob, out, true)
		if err != nil || !d.Credited {
			t.Fatalf("Deposit = %+v, %v", d, err)
		}
		waitHead(t, f.box, f.fundingEvent+3)
		all := readAll(t, f.box, f.fundingEvent, outbox.Filter{})
		if len(all) != 3 || all[2].Type != event.OnchainDeposit || all[2].SubjectID != d.Invoice.ID {
			t.Fatalf("events = %+v", all)
		}
		deposits := readAll(t, f.box, f.fundingEvent, outbox.Filter{Types: []string{event.OnchainDeposit}})
		if len(deposits) != 1 || deposits[0].SubjectID != d.Invoice.ID {
			t.Fatalf("onchain.deposit events = %+v", deposits)
		}
		settled := readAll(t, f.box, f.fundingEvent, outbox.Filter{Types: []string{event.InvoiceSettled}})
		if len(settled) != 1 || settled[0].SubjectID != inv.ID {
			t.Fatalf("invoice.settled events = %+v", settled)
		}
	})
}
