package ledger_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// boost is a Podcasting 2.0 boostagram, record 7629169.
var boost = []byte(`{"action":"boost","value_msat_total":21000,"app_name":"test","message":"great show"}`)

// keysendTo is a keysend the node received of amount msat, with records
// beside the preimage's.
func keysendTo(t *testing.T, amount int64, records map[uint64][]byte) ledger.InvoiceSettlement {
	t.Helper()
	var pre [32]byte
	if _, err := rand.Read(pre[:]); err != nil {
		t.Fatal(err)
	}
	hash := sha256.Sum256(pre[:])
	all := map[uint64][]byte{ledger.KeysendPreimageRecord: pre[:]}
	for typ, v := range records {
		all[typ] = v
	}
	return ledger.InvoiceSettlement{PaymentHash: hex.EncodeToString(hash[:]), Preimage: hex.EncodeToString(pre[:]),
		AmountMsat: amount, Settled: true, Keysend: true, CustomRecords: all}
}

// available is walletID's available balance.
func available(t *testing.T, db *store.DB, walletID string) int64 {
	t.Helper()
	w, err := wallet.NewService(db).Get(context.Background(), walletID)
	if err != nil {
		t.Fatal(err)
	}
	return w.Balance.AvailableMsat
}

// keysendInvoice is the one invoice of hash, as the API shows it.
func keysendInvoice(t *testing.T, l *ledger.Service, hash string) ledger.Invoice {
	t.Helper()
	invs, err := l.Invoices(context.Background(), ledger.Filter{PaymentHash: hash})
	if err != nil || len(invs) != 1 {
		t.Fatalf("invoices of %s: %d (%v), want 1", hash, len(invs), err)
	}
	return invs[0]
}

// A keysend whose record 696969 is a wallet's keysend id credits that
// wallet, once however often it is delivered, with an invoice Settled that
// carries the preimage and the payer's records (not the preimage's), and
// an invoice.settled event in the outbox.
func TestKeysendCreditsTheWalletItNames(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1000)
		id, err := f.ledger.KeysendID(ctx, f.wallet)
		if err != nil {
			t.Fatal(err)
		}
		before := available(t, db, f.wallet)
		st := keysendTo(t, 21_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id), 7629169: boost})
		for i := range 3 { // the stream, a reconnect's replay, reconciliation
			applied, err := f.ledger.SettleInvoice(ctx, st)
			if err != nil || applied != (i == 0) {
				t.Fatalf("delivery %d: applied %v (%v), want %v", i, applied, err, i == 0)
			}
		}
		if got := available(t, db, f.wallet); got != before+21_000 {
			t.Fatalf("available %d, want %d", got, before+21_000)
		}
		inv := keysendInvoice(t, f.ledger, st.PaymentHash)
		if inv.WalletID != f.wallet || !inv.Keysend || inv.Status != ledger.StatusSettled || *inv.AmountReceivedMsat != 21_000 {
			t.Fatalf("invoice %+v", inv)
		}
		b, _ := json.Marshal(inv)
		var wire struct {
			Keysend   bool `json:"keysend"`
			LnInvoice struct {
				Bolt11     *string           `json:"bolt11"`
				Preimage   string            `json:"payment_preimage"`
				TLVRecords map[string]string `json:"tlv_records"`
			} `json:"ln_invoice"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"696969": hex.EncodeToString([]byte(id)), "7629169": hex.EncodeToString(boost)}
		if !wire.Keysend || wire.LnInvoice.Bolt11 != nil || wire.LnInvoice.Preimage != st.Preimage ||
			len(wire.LnInvoice.TLVRecords) != 2 || wire.LnInvoice.TLVRecords["7629169"] != want["7629169"] ||
			wire.LnInvoice.TLVRecords["696969"] != want["696969"] {
			t.Fatalf("the record's JSON: %s", b)
		}
		var events int
		if err := db.W.NewSelect().Table("invoices").ColumnExpr("count(*)").Where("payment_hash = ?", st.PaymentHash).
			Where("event_id IS NOT NULL").Scan(ctx, &events); err != nil || events != 1 {
			t.Fatalf("invoice.settled events in the outbox: %d (%v), want 1", events, err)
		}
		f.check(t)
	})
}

// A keysend that names no wallet of the instance — no record 696969, an
// id nobody has, or one that is no text — credits the operator's wallet,
// made if it is missing.
func TestKeysendWithoutAMatchCreditsTheOperator(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1000)
		for i, records := range []map[uint64][]byte{
			{7629169: boost},
			{ledger.KeysendIDRecord: []byte("nobody-has-this")},
			{ledger.KeysendIDRecord: {0xff, 0xfe}},
		} {
			st := keysendTo(t, 1_000, records)
			if applied, err := f.ledger.SettleInvoice(ctx, st); err != nil || !applied {
				t.Fatalf("keysend %d: applied %v (%v)", i, applied, err)
			}
		}
		op, err := wallet.NewService(db).Ensure(ctx, ledger.DefaultOperator)
		if err != nil {
			t.Fatal(err)
		}
		if op.Balance.AvailableMsat != 3_000 || op.Balance.ReceivedMsat != 3_000 {
			t.Fatalf("the operator's balance: %+v, want 3000 received", op.Balance)
		}
		f.check(t)
	})
}

// Deliveries of one keysend at once (a leader's stream and another
// replica's reconciliation) credit it once: the insert of its invoice has
// a single winner.
func TestConcurrentKeysendDeliveriesCreditOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1000)
		other := f.another(t)
		id, err := f.ledger.KeysendID(ctx, f.wallet)
		if err != nil {
			t.Fatal(err)
		}
		before := available(t, db, f.wallet)
		st := keysendTo(t, 5_000, map[uint64][]byte{ledger.KeysendIDRecord: []byte(id)})
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		start := make(chan struct{})
		for i := range 8 {
			l := f.ledger
			if i%2 == 1 {
				l = other
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				applied, err := l.SettleInvoice(ctx, st)
				if err != nil {
					t.Errorf("delivery: %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				if applied {
					won++
				}
			}()
		}
		close(start)
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d deliveries applied, want 1", won)
		}
		if got := available(t, db, f.wallet); got != before+5_000 {
			t.Fatalf("available %d, want %d", got, before+5_000)
		}
		f.check(t)
	})
}

// A keysend whose preimage does not hash to its payment hash proves no
// payment: nothing is written or credited.
func TestKeysendWithAWrongPreimageCreditsNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1000)
		st := keysendTo(t, 1_000, nil)
		st.Preimage = keysendTo(t, 1_000, nil).Preimage
		if applied, err := f.ledger.SettleInvoice(ctx, st); err == nil || applied {
			t.Fatalf("applied %v (%v), want an error", applied, err)
		}
		if invs, err := f.ledger.Invoices(ctx, ledger.Filter{PaymentHash: st.PaymentHash}); err != nil || len(invs) != 0 {
			t.Fatalf("invoices %d (%v), want none", len(invs), err)
		}
		f.check(t)
	})
}

// A wallet's keysend id is drawn once: concurrent first asks agree, later
// ones answer it again, and each wallet has its own.
func TestKeysendIDIsDrawnOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1000)
		ids := make([]string, 6)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if ids[i], err = f.ledger.KeysendID(ctx, f.wallet); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if id == "" || id != ids[0] {
				t.Fatalf("keysend ids %q, want one", ids)
			}
		}
		bob := f.funded(t, "bob", 1)
		if other, err := f.ledger.KeysendID(ctx, bob); err != nil || other == ids[0] {
			t.Fatalf("bob's keysend id %q (%v), alice's %q", other, err, ids[0])
		}
		if _, err := f.ledger.KeysendID(ctx, "no-such-wallet"); err != ledger.ErrWalletNotFound {
			t.Fatalf("a missing wallet's keysend id: %v, want ErrWalletNotFound", err)
		}
	})
}
