package api_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// budgetKey makes u a key of its own, through /v1/me/api-keys, that may
// pay and read its keys, with budget (a JSON object); it returns the key
// as made and the header that presents it.
func (u *user) budgetKey(t testing.TB, spec map[string]any) (auth.APIKey, []string) {
	t.Helper()
	var k auth.APIKey
	u.e.do("POST", "/v1/me/api-keys", map[string]any{"name": "shop", "budget": spec,
		"permissions": []string{"read:wallet", "write:transaction", "read:transaction", "read:api_key"}}, u.key...).
		expect(t, 201).decodeJSON(t, &k)
	if k.Budget == nil || k.Key == "" {
		t.Fatalf("made key %+v", k)
	}
	return k, apiKey(k.Key)
}

// budgetOf reads key id's budget as its owner sees it.
func (u *user) budgetOf(t testing.TB, id string) budget.Status {
	t.Helper()
	var k auth.APIKey
	u.e.do("GET", "/v1/me/api-keys/"+id, nil, u.key...).expect(t, 200).decodeJSON(t, &k)
	if k.Budget == nil {
		t.Fatalf("key %s shows no budget", id)
	}
	return *k.Budget
}

// payWith pays bolt11 from u's wallet with the credential header given.
func (u *user) payWith(header []string, bolt11 string, more ...string) response {
	return u.e.do("POST", "/v1/me/payments", map[string]any{"input": bolt11}, append(append([]string{}, header...), more...)...)
}

// invoices makes n invoices of amount msat of u's, valid for two days.
func (u *user) invoices(t testing.TB, n int, amount int64) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		var inv ledger.Invoice
		u.e.do("POST", "/v1/me/invoices", map[string]any{"amount_msat": amount, "expiry": 2 * 24 * 3600}, u.key...).
			expect(t, 201).decodeJSON(t, &inv)
		out[i] = inv.LnInvoice.Bolt11
	}
	return out
}

// 100 payments of 1000 msat at once, with one key whose budget is 50000
// msat, from a wallet that could pay them all: exactly 50 are paid, the
// other 50 are refused budget_exceeded, the key's budget shows the 50000
// paid, and both wallets' books are exact.
func TestBudgetHoldsAgainstConcurrentPayments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 500_000)
		key, header := alice.budgetKey(t, map[string]any{"max_msat": 50_000, "renewal": "never"})
		bolt11s := bob.invoices(t, 100, 1_000)
		codes := make([]response, len(bolt11s))
		var wg sync.WaitGroup
		for i, b := range bolt11s {
			wg.Go(func() { codes[i] = alice.payWith(header, b) })
		}
		wg.Wait()
		paid, refused := 0, 0
		for _, r := range codes {
			switch r.Code {
			case 201:
				var p ledger.Payment
				r.decodeJSON(t, &p)
				if p.Status != ledger.StatusSettled || p.APIKeyID == nil || *p.APIKeyID != key.ID {
					t.Fatalf("payment %+v", p)
				}
				paid++
			case 422:
				if p := r.problem(t); p.Code != "budget_exceeded" {
					t.Fatalf("refusal %+v", p)
				}
				refused++
			default:
				t.Fatalf("answer %d %s", r.Code, r.Body)
			}
		}
		if paid != 50 || refused != 50 {
			t.Fatalf("%d paid, %d refused; want 50 and 50", paid, refused)
		}
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 50_000 || st.MaxMsat != 50_000 {
			t.Fatalf("budget after the race = %+v", st)
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 450_000, ReceivedMsat: 500_000, SentMsat: 50_000}) {
			t.Fatalf("alice = %+v", b)
		}
		if b := bob.balance(t); b != (wallet.Balance{AvailableMsat: 50_000, ReceivedMsat: 50_000}) {
			t.Fatalf("bob = %+v", b)
		}
		// The admin's token and alice's key without a budget are unbounded.
		for _, b := range bob.invoices(t, 2, 60_000)[:1] {
			alice.payWith(alice.key, b).expect(t, 201)
		}
		e.do("POST", "/v1/payments", map[string]any{"wallet_id": alice.id, "input": bob.invoices(t, 1, 60_000)[0]},
			bearer(e.adminToken())...).expect(t, 201)
		e.checkLedger(t)
	})
}

// A daily budget starts again at midnight UTC, with the clock moved, not
// waited for: exhausted just before, refused; just after, paid again,
// its use counted from nothing and renews_at the next midnight.
func TestBudgetRenewsAtMidnightUTC(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		var now atomic.Int64
		now.Store(midnight.Add(-10 * time.Second).UnixNano())
		clock := func() time.Time { return time.Unix(0, now.Load()) }
		e.ledger.SetClock(clock)
		e.keys.SetClock(clock)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 100_000)
		key, header := alice.budgetKey(t, map[string]any{"max_msat": 2_000, "renewal": "daily"})
		bolt11s := bob.invoices(t, 4, 1_000)
		alice.payWith(header, bolt11s[0]).expect(t, 201)
		alice.payWith(header, bolt11s[1]).expect(t, 201)
		if p := alice.payWith(header, bolt11s[2]).expect(t, 422).problem(t); p.Code != "budget_exceeded" {
			t.Fatalf("past the day's budget: %+v", p)
		}
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 2_000 || st.RenewsAt == nil || !st.RenewsAt.Equal(midnight) {
			t.Fatalf("before midnight: %+v, want renews_at %s", st, midnight)
		}
		now.Store(midnight.Add(10 * time.Second).UnixNano())
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 0 || !st.RenewsAt.Equal(midnight.Add(24*time.Hour)) {
			t.Fatalf("after midnight: %+v", st)
		}
		alice.payWith(header, bolt11s[2]).expect(t, 201)
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 1_000 {
			t.Fatalf("after midnight's payment: %+v", st)
		}
		e.checkLedger(t)
	})
}

// Retries of one payment with one Idempotency-Key, at once and after,
// pay once and charge the budget once.
func TestBudgetChargesAnIdempotentRetryOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 100_000)
		key, header := alice.budgetKey(t, map[string]any{"max_msat": 10_000, "renewal": "weekly"})
		bolt11 := bob.invoices(t, 1, 4_000)[0]
		answers := make([]response, 8)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() { answers[i] = alice.payWith(header, bolt11, "Idempotency-Key", "order-1") })
		}
		wg.Wait()
		answers = append(answers, alice.payWith(header, bolt11, "Idempotency-Key", "order-1"))
		ids := map[string]bool{}
		for _, r := range answers {
			if r.Code != 201 && r.Code != 200 {
				t.Fatalf("retry answered %d %s", r.Code, r.Body)
			}
			var p ledger.Payment
			r.decodeJSON(t, &p)
			ids[p.ID] = true
		}
		if len(ids) != 1 {
			t.Fatalf("%d payments for one Idempotency-Key", len(ids))
		}
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 4_000 {
			t.Fatalf("budget used %d, want 4000", st.UsedMsat)
		}
		if b := alice.balance(t); b.SentMsat != 4_000 {
			t.Fatalf("alice = %+v", b)
		}
		e.checkLedger(t)
	})
}

// A payment made with a key without a budget keeps the key's id too (on
// PostgreSQL through hearth_pay_own's batch, which records it).
func TestPaymentKeepsItsKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) { paymentKeepsItsKey(t, db) })
}

func paymentKeepsItsKey(t *testing.T, db *store.DB) {
	e := newEnv(t, db, nil)
	alice, bob := e.user("alice"), e.user("bob")
	alice.fund(t, 10_000)
	var keys []auth.APIKey
	e.do("GET", "/v1/me/api-keys", nil, alice.key...).expect(t, 200).decodeJSON(t, &keys)
	var p ledger.Payment
	alice.payWith(alice.key, bob.invoices(t, 1, 1_000)[0]).expect(t, 201).decodeJSON(t, &p)
	if len(keys) != 1 || p.APIKeyID == nil || *p.APIKeyID != keys[0].ID {
		t.Fatalf("payment's key %v, keys %+v", p.APIKeyID, keys)
	}
	var admins ledger.Payment
	e.do("POST", "/v1/payments", map[string]any{"wallet_id": alice.id, "input": bob.invoices(t, 1, 1_000)[0]},
		bearer(e.adminToken())...).expect(t, 201).decodeJSON(t, &admins)
	if admins.APIKeyID != nil {
		t.Fatalf("the admin's token paid as key %s", *admins.APIKeyID)
	}
	e.do("GET", "/v1/me/payments/"+p.ID, nil, alice.key...).expect(t, 200).decodeJSON(t, &p)
	if p.APIKeyID == nil || *p.APIKeyID != keys[0].ID {
		t.Fatalf("payment read back with key %v", p.APIKeyID)
	}
}
