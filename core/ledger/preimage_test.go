package ledger_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// proves fails t unless preimage is lowercase hex whose sha256 is hash.
func proves(t *testing.T, what string, preimage *string, hash string) {
	t.Helper()
	if preimage == nil {
		t.Fatalf("%s: no payment_preimage", what)
	}
	raw, err := hex.DecodeString(*preimage)
	if err != nil || *preimage != strings.ToLower(*preimage) || len(raw) != 32 {
		t.Fatalf("%s: payment_preimage %q is not 32 bytes of lowercase hex", what, *preimage)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != hash {
		t.Fatalf("%s: sha256(payment_preimage) = %x, want payment_hash %s", what, sum, hash)
	}
}

// noPreimage fails t if the record, as the API writes it, shows a preimage.
func noPreimage(t *testing.T, what string, record any) {
	t.Helper()
	b, err := json.Marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "payment_preimage") {
		t.Fatalf("%s shows a preimage: %s", what, b)
	}
}

// An internal payment carries the payee invoice's preimage everywhere the
// payer sees it: Pay's answer, the record by id, the list, the admin's
// view and an idempotent replay. The payee's invoice shows it once
// Settled, never while Pending or Expired. On PostgreSQL this is the
// batch function's path; on SQLite the Go path.
func TestInternalPaymentCarriesThePreimage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 100_000)
		bob, err := wallet.NewService(db).Ensure(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		inv, err := f.ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 30_000})
		if err != nil {
			t.Fatal(err)
		}
		noPreimage(t, "a new invoice", inv)
		got, err := f.ledger.Invoice(ctx, bob.ID, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		noPreimage(t, "a Pending invoice", got)
		hash := inv.LnInvoice.PaymentHash

		req := ledger.PayRequest{Input: inv.LnInvoice.Bolt11, IdempotencyKey: "proof-1"}
		p, created, err := f.ledger.Pay(ctx, f.wallet, req)
		if err != nil || !created {
			t.Fatalf("Pay = %v, created %v", err, created)
		}
		if p.Internal == nil || p.Lightning != nil || p.Internal.PaymentHash == nil || *p.Internal.PaymentHash != hash {
			t.Fatalf("payment = %+v", p)
		}
		proves(t, "Pay's answer", p.Internal.PaymentPreimage, hash)
		for _, owner := range []string{f.wallet, ""} {
			byID, err := f.ledger.Payment(ctx, owner, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			proves(t, "the payment by id (owner "+owner+")", byID.Internal.PaymentPreimage, hash)
			list, err := f.ledger.Payments(ctx, ledger.Filter{WalletID: owner, Ledger: ledger.LedgerInternal})
			if err != nil || len(list) != 1 {
				t.Fatalf("Payments = %d, %v", len(list), err)
			}
			proves(t, "the payment in the list (owner "+owner+")", list[0].Internal.PaymentPreimage, hash)
		}
		replay, created, err := f.ledger.Pay(ctx, f.wallet, req)
		if err != nil || created || replay.ID != p.ID {
			t.Fatalf("replay = %+v, created %v, %v", replay, created, err)
		}
		proves(t, "the replay", replay.Internal.PaymentPreimage, hash)

		for _, owner := range []string{bob.ID, ""} {
			settled, err := f.ledger.Invoice(ctx, owner, inv.ID)
			if err != nil || settled.Status != ledger.StatusSettled {
				t.Fatalf("invoice = %+v, %v", settled, err)
			}
			proves(t, "the payee's invoice (owner "+owner+")", settled.LnInvoice.PaymentPreimage, hash)
			list, err := f.ledger.Invoices(ctx, ledger.Filter{WalletID: owner, Status: ledger.StatusSettled})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range list {
				if l.ID == inv.ID {
					found = true
					proves(t, "the payee's invoice in the list (owner "+owner+")", l.LnInvoice.PaymentPreimage, hash)
				}
			}
			if !found {
				t.Fatalf("the settled invoice is not in the list of %q", owner)
			}
		}

		// An invoice that expired unpaid shows none.
		stale, err := f.ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		f.ledger.SetClock(func() time.Time { return time.Now().Add(48 * time.Hour) })
		expired, err := f.ledger.Invoice(ctx, bob.ID, stale.ID)
		if err != nil || expired.Status != ledger.StatusExpired {
			t.Fatalf("invoice = %+v, %v", expired, err)
		}
		noPreimage(t, "an Expired invoice", expired)
		f.check(t)
	})
}

// A payment that leaves through the node carries the node's preimage once
// Settled; a Failed one carries none, and neither does a Pending one.
func TestExternalPaymentCarriesThePreimageOnlyWhenSettled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		raw := strings.Repeat("ab", 32)
		b, _ := hex.DecodeString(raw)
		sum := sha256.Sum256(b)
		hash := hex.EncodeToString(sum[:])
		bolt11 := "lnbcrt" + hash
		f.node.decoded[bolt11] = &ledger.DecodedInvoice{PaymentHash: hash, AmountMsat: 10_000, PayeePubkey: "them",
			CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 1, Preimage: raw}, nil
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: bolt11, IdempotencyKey: "ext"})
		if err != nil || p.Status != ledger.StatusSettled {
			t.Fatalf("Pay = %+v, %v", p, err)
		}
		proves(t, "the settled external payment", p.Lightning.PaymentPreimage, hash)
		replay, created, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: bolt11, IdempotencyKey: "ext"})
		if err != nil || created {
			t.Fatalf("replay: created %v, %v", created, err)
		}
		proves(t, "the replayed external payment", replay.Lightning.PaymentPreimage, hash)

		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, &ledger.PaymentFailure{Reason: "no route"}
		}
		failed, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: f.node.external(20_000)})
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("Pay = %+v, %v", failed, err)
		}
		noPreimage(t, "a Failed payment", failed)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
		}
		pending, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: f.node.external(30_000)})
		if err != nil || pending.Status != ledger.StatusPending {
			t.Fatalf("Pay = %+v, %v", pending, err)
		}
		noPreimage(t, "a Pending payment", pending)
		f.check(t)
	})
}
