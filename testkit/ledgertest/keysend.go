package ledgertest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/lib/poll"
)

// KeysendPayer is a node outside that keysends to Hearth's: to its key,
// amountMsat with records; it answers the payment hash.
type KeysendPayer func(ctx context.Context, amountMsat int64, records map[uint64][]byte) (hash string, err error)

// ReceiveKeysends is the scenario of receiving keysend on a real node,
// over the books whose ledger follows node (started with start, stopped
// with stop, running when it is called), the payer keysending:
//   - one whose record 696969 is alice's keysend id, with a boostagram
//     (7629169), credits alice once — the stream's delivery, and the
//     node's word read back as reconciliation would — and her invoice
//     shows the boost intact;
//   - one that names no wallet credits the operator's;
//   - one received while the ledger is stopped is credited when it starts
//     again (it reads the node's invoices from where it got to), and none
//     of the node's keysends from before the database's first start (a
//     run on another database) is.
func (b *Books) ReceiveKeysends(t *testing.T, node ledger.Node, pay KeysendPayer, stop, start func()) {
	t.Helper()
	ctx := context.Background()
	alice, operator := b.Wallet("alice"), b.Wallet(ledger.DefaultOperator)
	id, err := b.Led.KeysendID(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	boost := []byte(`{"action":"boost","value_msat_total":21000,"app_name":"Fountain","message":"great show"}`)
	hash, err := pay(ctx, 21_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id), 7629169: boost})
	if err != nil {
		t.Fatal(err)
	}
	b.Credited(alice, 21_000)
	invs, err := b.Led.Invoices(ctx, ledger.Filter{PaymentHash: hash})
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
	if applied, err := b.Led.SettleInvoice(ctx, *st); err != nil || applied {
		t.Fatalf("delivered again: applied %v (%v), want neither", applied, err)
	}
	if bal := b.Balance(alice); bal.AvailableMsat != 21_000 || bal.ReceivedMsat != 21_000 {
		t.Fatalf("alice after the redelivery: %+v", bal)
	}

	if _, err := pay(ctx, 3_000, map[uint64][]byte{7629169: boost}); err != nil {
		t.Fatal(err)
	}
	b.Credited(operator, 3_000)

	stop()
	if _, err := pay(ctx, 5_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id)}); err != nil {
		t.Fatal(err)
	}
	start()
	b.Credited(alice, 26_000)
	if bal := b.Balance(operator); bal.AvailableMsat != 3_000 {
		t.Fatalf("the operator at the end: %+v", bal)
	}
	b.Check()
}

// Credited waits until walletID's available balance is want.
func (b *Books) Credited(walletID string, want int64) {
	b.T.Helper()
	poll.Until(b.T, 30*time.Second, func() error {
		if got := b.Balance(walletID).AvailableMsat; got != want {
			return fmt.Errorf("available %d msat, want %d", got, want)
		}
		return nil
	})
}
