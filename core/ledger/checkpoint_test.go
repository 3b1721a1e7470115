package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// payBob has alice pay n invoices of bob inside the instance and returns
// the payments' ids.
func (f *fixture) payBob(t *testing.T, bob string, n int, amount int64) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	for i := range ids {
		inv, err := f.ledger.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: amount})
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = p.ID
	}
	return ids
}

// checked runs the incremental check (or the full one) and fails the test
// on an error or when it read more or less than want says.
func checked(t *testing.T, led *ledger.Service, full, wantFull bool) *ledger.CheckReport {
	t.Helper()
	check := led.CheckIncremental
	if full {
		check = led.CheckFull
	}
	rep, err := check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Full != wantFull {
		t.Fatalf("check read every row: %v, want %v (%+v)", rep.Full, wantFull, rep)
	}
	return rep
}

// onlyBreach fails the test unless wallet is the one breach of rep, for
// reason.
func onlyBreach(t *testing.T, rep *ledger.CheckReport, wallet, reason string) {
	t.Helper()
	if len(rep.Breaches) != 1 || rep.Breaches[0].WalletID != wallet || rep.Breaches[0].Reason != reason {
		t.Fatalf("breaches = %+v, want %s: %s", rep.Breaches, wallet, reason)
	}
}

func noBreach(t *testing.T, rep *ledger.CheckReport) {
	t.Helper()
	if len(rep.Breaches) != 0 {
		t.Fatalf("breaches = %+v", rep.Breaches)
	}
}

// The first check reads everything and writes the checkpoint; the next
// reads what settled after it, and finds a payment edited there, and a
// balance edited anywhere.
func TestIncrementalCheckFindsABreachInNewRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		bob := f.funded(t, "bob", 1)
		f.payBob(t, bob, 3, 1_000)
		first := checked(t, f.ledger, false, true)
		noBreach(t, first)
		if !first.Moved || first.Through <= 0 {
			t.Fatalf("first check wrote no checkpoint: %+v", first)
		}
		f.payBob(t, bob, 2, 2_000)
		again := checked(t, f.ledger, false, false)
		noBreach(t, again)
		if !again.Moved || again.Through <= first.Through {
			t.Fatalf("the checkpoint did not move past the new payments: %+v after %+v", again, first)
		}
		newest := f.payBob(t, bob, 1, 4_000)
		if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat + 7 WHERE id = ?", newest[0]); err != nil {
			t.Fatal(err)
		}
		onlyBreach(t, checked(t, f.ledger, false, false), f.wallet, "sent or fees differ from settled payments")
		if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat - 7 WHERE id = ?", newest[0]); err != nil {
			t.Fatal(err)
		}
		noBreach(t, checked(t, f.ledger, false, false))
		// A balance is read whole at every check.
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET received_msat = received_msat + 5, available_msat = available_msat + 5 WHERE id = ?", bob); err != nil {
			t.Fatal(err)
		}
		onlyBreach(t, checked(t, f.ledger, false, false), bob, "received differs from settled invoices")
	})
}

// A row edited by hand after it went into the checkpoint is frozen there:
// the incremental check cannot see it (the limit its note states); the
// full one reads every row and finds it, and rebuilds the checkpoint once
// the books balance again.
func TestFullCheckFindsABreachInCheckpointedRows(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		bob := f.funded(t, "bob", 1)
		old := f.payBob(t, bob, 3, 1_000)
		noBreach(t, checked(t, f.ledger, false, true))
		if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat + 7 WHERE id = ?", old[0]); err != nil {
			t.Fatal(err)
		}
		f.payBob(t, bob, 1, 1_000)
		missed := checked(t, f.ledger, false, false)
		noBreach(t, missed) // the blind spot its note states
		full := checked(t, f.ledger, true, true)
		onlyBreach(t, full, f.wallet, "sent or fees differ from settled payments")
		if full.Moved {
			t.Fatalf("a check that found the sums in breach wrote a checkpoint: %+v", full)
		}
		legacy, err := f.ledger.Check(ctx)
		if err != nil || len(legacy) != 1 || legacy[0].WalletID != f.wallet {
			t.Fatalf("Check = %+v, %v", legacy, err)
		}
		if _, err := db.W.ExecContext(ctx, "UPDATE payments SET amount_msat = amount_msat - 7 WHERE id = ?", old[0]); err != nil {
			t.Fatal(err)
		}
		rebuilt := checked(t, f.ledger, true, true)
		noBreach(t, rebuilt)
		if !rebuilt.Moved || rebuilt.Through < missed.Through {
			t.Fatalf("the full check did not rebuild the checkpoint: %+v after %+v", rebuilt, missed)
		}
		noBreach(t, checked(t, f.ledger, false, false))
	})
}

// A payment pending at the checkpoint and settled after it, another failed
// at the checkpoint and settled late, and an invoice pending at the
// checkpoint and paid after it are each counted once.
func TestCheckpointCountsWhatSettlesLaterOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("connection reset by peer") // ambiguous: Pending
		}
		pending, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: f.node.external(100_000)})
		if err != nil || pending.Status != ledger.StatusPending {
			t.Fatalf("pending payment = %+v, %v", pending, err)
		}
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, &ledger.PaymentFailure{Reason: "no route"}
		}
		failed, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: f.node.external(200_000)})
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("failed payment = %+v, %v", failed, err)
		}
		unpaid, err := f.ledger.CreateInvoice(ctx, f.wallet, ledger.NewInvoice{AmountMsat: 50_000})
		if err != nil {
			t.Fatal(err)
		}
		noBreach(t, checked(t, f.ledger, false, true))

		if err := f.ledger.SettlePayment(ctx, pending.ID, 11, "ab"); err != nil {
			t.Fatal(err)
		}
		if err := f.ledger.SettlePayment(ctx, failed.ID, 13, "cd"); err != nil { // a late success
			t.Fatal(err)
		}
		if _, err := f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: unpaid.LnInvoice.PaymentHash, AmountMsat: 50_000}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reads the checkpoint the first moved past them
			rep := checked(t, f.ledger, false, false)
			noBreach(t, rep)
		}
		b := f.balance(t)
		if b.SentMsat != 300_000 || b.FeesPaidMsat != 24 || b.ReceivedMsat != 1_050_000 || b.ReservedMsat != 0 {
			t.Fatalf("balance = %+v", b)
		}
		noBreach(t, checked(t, f.ledger, true, true))
	})
}
