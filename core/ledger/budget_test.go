package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// budgeted is an API key of alice's with a budget, and what paying with
// it asks of the ledger.
type budgeted struct {
	keys *auth.Keys
	id   string
	b    *ledger.Budget
}

// newBudget makes alice a key with a budget of max msat renewing r; its
// keys read the time from now.
func newBudget(t *testing.T, db *store.DB, limit int64, r budget.Renewal, now func() time.Time) *budgeted {
	t.Helper()
	keys := auth.NewKeys(db)
	keys.SetClock(now)
	admin := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true}
	k, err := keys.Create(context.Background(), admin, auth.NewKey{UserID: "alice", Name: "budgeted",
		Permissions: []string{"write:transaction"}, Budget: &budget.Spec{MaxMsat: limit, Renewal: r}})
	if err != nil {
		t.Fatal(err)
	}
	return &budgeted{keys: keys, id: k.ID, b: &ledger.Budget{KeyID: k.ID, Renewal: r}}
}

// used is what the key's budget shows used now.
func (k *budgeted) used(t *testing.T) int64 {
	t.Helper()
	key, err := k.keys.Get(context.Background(), "", k.id)
	if err != nil {
		t.Fatal(err)
	}
	return key.Budget.UsedMsat
}

// req is a payment of input with the key.
func (k *budgeted) req(input string) ledger.PayRequest {
	return ledger.PayRequest{Input: input, KeyID: k.id, Budget: k.b}
}

// An external payment counts its reserve (amount + maximum fee) against
// the budget while Pending, and amount + real fee once settled; settling
// again changes nothing. The payment names its key.
func TestBudgetExternalPaymentKeepsAmountAndRealFee(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		k := newBudget(t, db, 200_000, budget.Daily, time.Now)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("connection reset by peer") // ambiguous: stays Pending
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, k.req(f.node.external(100_000)))
		if err != nil || p.Status != ledger.StatusPending {
			t.Fatalf("pay: %+v %v", p, err)
		}
		if p.APIKeyID == nil || *p.APIKeyID != k.id {
			t.Fatalf("payment's key = %v, want %s", p.APIKeyID, k.id)
		}
		if u := k.used(t); u != 105_000 {
			t.Fatalf("used while Pending = %d, want the reserve 105000", u)
		}
		for range 2 {
			if err := f.ledger.SettlePayment(ctx, p.ID, 321, "ab"); err != nil {
				t.Fatal(err)
			}
			if u := k.used(t); u != 100_321 {
				t.Fatalf("used once settled = %d, want 100321", u)
			}
		}
		f.check(t)
	})
}

// A payment that fails gives everything back; its late success charges
// amount + fee again, even past the budget (the money has moved). A
// payment the budget cannot hold is refused before the node is asked or
// the wallet touched, and nothing is recorded.
func TestBudgetFailureGivesBackAndLateSuccessChargesAgain(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		k := newBudget(t, db, 160_000, budget.Never, time.Now)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, &ledger.PaymentFailure{Reason: "no route"}
		}
		failed, _, err := f.ledger.Pay(ctx, f.wallet, k.req(f.node.external(100_000)))
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("pay: %+v %v", failed, err)
		}
		if u := k.used(t); u != 0 {
			t.Fatalf("used after a failure = %d", u)
		}
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 7}, nil
		}
		if _, _, err := f.ledger.Pay(ctx, f.wallet, k.req(f.node.external(50_000))); err != nil {
			t.Fatal(err)
		}
		if u := k.used(t); u != 50_007 {
			t.Fatalf("used = %d, want 50007", u)
		}
		// 100000 + 5000 of maximum fee would make 155007 of 160000: fits;
		// 110000 + 5000 would not.
		before, calls := f.balance(t), f.node.payCalls
		_, _, err = f.ledger.Pay(ctx, f.wallet, k.req(f.node.external(110_000)))
		if !errors.Is(err, ledger.ErrBudgetExceeded) {
			t.Fatalf("a payment past the budget: %v", err)
		}
		if f.balance(t) != before || f.node.payCalls != calls || k.used(t) != 50_007 {
			t.Fatalf("a refused payment moved something: %+v, %d node calls, used %d", f.balance(t), f.node.payCalls-calls, k.used(t))
		}
		var n int
		if err := db.W.NewRaw(`SELECT COUNT(*) FROM payments`).Scan(ctx, &n); err != nil || n != 2 {
			t.Fatalf("payments recorded = %d (%v), want 2", n, err)
		}
		if err := f.ledger.SettlePayment(ctx, failed.ID, 10, "cd"); err != nil {
			t.Fatal(err)
		}
		if u := k.used(t); u != 150_017 {
			t.Fatalf("used after the late success = %d, want 150017", u)
		}
		if err := f.ledger.SettlePayment(ctx, failed.ID, 10, "cd"); err != nil {
			t.Fatal(err)
		}
		if u := k.used(t); u != 150_017 {
			t.Fatalf("settling again charged again: used %d", u)
		}
		f.check(t)
	})
}

// A daily budget starts again at midnight UTC: exhausted before it, paid
// from again after it, with the clock moved rather than waited for. A
// payment of the day before that fails afterwards gives back nothing to
// the new day's budget, whose used amount started from nothing.
func TestBudgetRenewsAtMidnight(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		now := midnight.Add(-10 * time.Second)
		clock := func() time.Time { return now }
		f.ledger.SetClock(clock)
		k := newBudget(t, db, 120_000, budget.Daily, clock)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("timeout") // Pending
		}
		external := f.node.external(100_000)
		f.node.decoded[external].ExpiresAt = midnight.Add(time.Hour) // still payable by the test's clock
		yesterday, _, err := f.ledger.Pay(ctx, f.wallet, k.req(external))
		if err != nil || k.used(t) != 105_000 {
			t.Fatalf("first payment: %v, used %d", err, k.used(t))
		}
		bob, err := wallet.NewService(db).Ensure(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		day := int64(2 * 24 * 3600)
		invoice := func() string {
			t.Helper()
			inv, err := f.ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 20_000, Expiry: &day})
			if err != nil {
				t.Fatal(err)
			}
			return inv.LnInvoice.Bolt11
		}
		if _, _, err := f.ledger.Pay(ctx, f.wallet, k.req(invoice())); !errors.Is(err, ledger.ErrBudgetExceeded) {
			t.Fatalf("past the day's budget: %v", err)
		}
		now = midnight.Add(10 * time.Second)
		if u := k.used(t); u != 0 {
			t.Fatalf("used after midnight = %d", u)
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, k.req(invoice()))
		if err != nil || p.Status != ledger.StatusSettled || p.Ledger != ledger.LedgerInternal {
			t.Fatalf("after midnight: %+v %v", p, err)
		}
		if u := k.used(t); u != 20_000 {
			t.Fatalf("used after midnight's payment = %d, want 20000", u)
		}
		if err := f.ledger.FailPayment(ctx, yesterday.ID, "no route"); err != nil {
			t.Fatal(err)
		}
		if u := k.used(t); u != 20_000 {
			t.Fatalf("yesterday's failure gave back into today: used %d", u)
		}
		f.check(t)
	})
}

// An on-chain spend counts amount + its exact fee; a refused publication
// gives it back, a confirmed one keeps it.
func TestBudgetOnchainSpend(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f, led, node := spendKit(t, db, 1_000_000_000)
		k := newBudget(t, db, 200_000_000, budget.Monthly, time.Now)
		cost := int64(50_000_000 + spendFeeSat*1000)
		node.publish = func(*ledger.PreparedSpend) error { return &ledger.PaymentFailure{Reason: "min relay fee not met"} }
		req := k.req("bcrt1qdest")
		req.AmountMsat = sats(50_000)
		p, _, err := led.Pay(ctx, f.wallet, req)
		if err != nil || p.Status != ledger.StatusFailed || k.used(t) != 0 {
			t.Fatalf("refused spend: %+v %v, used %d", p, err, k.used(t))
		}
		node.publish = nil
		p, _, err = led.Pay(ctx, f.wallet, req)
		if err != nil || p.Status != ledger.StatusPending || k.used(t) != cost {
			t.Fatalf("published spend: %+v %v, used %d, want %d", p, err, k.used(t), cost)
		}
		node.learn(p.Bitcoin.TxID, 1)
		if err := led.ReconcileSpends(ctx, nil, true); err != nil {
			t.Fatal(err)
		}
		if got, _ := led.Payment(ctx, "", p.ID); got.Status != ledger.StatusSettled || k.used(t) != cost {
			t.Fatalf("confirmed spend: %s, used %d", got.Status, k.used(t))
		}
		req.AmountMsat = sats(150_000) // with the fee, past what is left
		leased := node.leases()
		if _, _, err := led.Pay(ctx, f.wallet, req); !errors.Is(err, ledger.ErrBudgetExceeded) {
			t.Fatalf("a spend past the budget: %v", err)
		}
		if node.leases() != leased {
			t.Fatalf("a refused spend kept its coins leased")
		}
		f.check(t)
	})
}
