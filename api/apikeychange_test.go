package api_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// PATCH changes a key's name, budget and expiry, each alone: a lowered
// budget keeps what the period used (so the next payment past it is
// refused), a new renewal carries it into its own current period, null
// removes the budget (unbounded again) and the expiry; bad values are 400
// or 422 and change nothing; another user's key is 404; the admin changes
// any key; a key with a budget changes no budget.
func TestKeyChange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 100_000)
		key, header := alice.budgetKey(t, map[string]any{"max_msat": 5_000, "renewal": "monthly"})
		bolt11s := bob.invoices(t, 6, 1_000)
		alice.payWith(header, bolt11s[0]).expect(t, 201)
		alice.payWith(header, bolt11s[1]).expect(t, 201)
		path := "/v1/me/api-keys/" + key.ID

		var got auth.APIKey
		e.do("PATCH", path, map[string]any{"name": " till ", "budget": map[string]any{"max_msat": 3_000, "renewal": "monthly"}}, alice.key...).
			expect(t, 200).decodeJSON(t, &got)
		if got.Name != "till" || got.Budget == nil || got.Budget.MaxMsat != 3_000 || got.Budget.UsedMsat != 2_000 || got.Key != "" {
			t.Fatalf("after lowering: %+v budget %+v", got, got.Budget)
		}
		alice.payWith(header, bolt11s[2]).expect(t, 201)
		if p := alice.payWith(header, bolt11s[3]).expect(t, 422).problem(t); p.Code != "budget_exceeded" {
			t.Fatalf("past the lowered budget: %+v", p)
		}
		e.do("PATCH", path, map[string]any{"budget": map[string]any{"max_msat": 4_000, "renewal": "daily"}}, alice.key...).
			expect(t, 200).decodeJSON(t, &got)
		if got.Budget.UsedMsat != 3_000 || got.Budget.Renewal != "daily" || got.Name != "till" {
			t.Fatalf("after a new renewal: %+v", got.Budget)
		}
		alice.payWith(header, bolt11s[3]).expect(t, 201)
		if st := alice.budgetOf(t, key.ID); st.UsedMsat != 4_000 {
			t.Fatalf("daily budget used %+v", st)
		}

		// Refusals change nothing.
		for _, c := range []struct {
			body   string
			status int
		}{
			{`{"budget":{"max_msat":0,"renewal":"daily"}}`, 422},
			{`{"budget":{"max_msat":1000,"renewal":"hourly"}}`, 422},
			{`{"budget":"much"}`, 400},
			{`{"budget":{"max_msat":1000,"extra":1}}`, 400},
			{`{"nickname":"x"}`, 400},
			{`{"name":""}`, 422},
			{`{"expires_at":"2001-01-01T00:00:00Z"}`, 422},
			{`{"expires_at":"soon"}`, 400},
		} {
			r := e.do("PATCH", path, c.body, alice.key...)
			if r.Code != c.status {
				t.Fatalf("%s: %d %s, want %d", c.body, r.Code, r.Body, c.status)
			}
		}
		e.do("PATCH", path, map[string]any{"name": "x"}, bob.key...).expect(t, 404)
		e.do("PATCH", "/v1/me/api-keys/not-a-uuid", map[string]any{"name": "x"}, alice.key...).expect(t, 400)
		var keeper auth.APIKey
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "keeper", "permissions": []string{"write:api_key"},
			"budget": map[string]any{"max_msat": 1}}, alice.key...).expect(t, 201).decodeJSON(t, &keeper)
		if p := e.do("PATCH", path, map[string]any{"budget": nil}, apiKey(keeper.Key)...).expect(t, 422).problem(t); p.Code != "permission_exceeded" {
			t.Fatalf("a budgeted key freeing itself: %+v", p)
		}

		exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		e.do("PATCH", path, map[string]any{"expires_at": exp}, alice.key...).expect(t, 200).decodeJSON(t, &got)
		if got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp) || got.Budget.MaxMsat != 4_000 {
			t.Fatalf("after expires_at: %+v", got)
		}
		got = auth.APIKey{}
		e.do("PATCH", "/v1/api-keys/"+key.ID, map[string]any{"budget": nil, "expires_at": nil}, bearer(e.adminToken())...).
			expect(t, 200).decodeJSON(t, &got)
		if got.Budget != nil || got.ExpiresAt != nil {
			t.Fatalf("after removing budget and expiry: %+v", got)
		}
		alice.payWith(header, bolt11s[4]).expect(t, 201)
		alice.payWith(header, bolt11s[5]).expect(t, 201)
		e.checkLedger(t)
	})
}

// A PATCH lowering a budget from 50,000 to 10,000 msat while 50 payments
// of 1,000 msat race it: the change and each payment's charge are
// conditional updates of the key's row, so they serialize. The PATCH's
// answer tells what was used at its instant; every payment that committed
// after it was checked against the lowered limit: the total is what was
// used before, or at most the lowered limit.
func TestKeyBudgetLoweredDuringPayments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 500_000)
		key, header := alice.budgetKey(t, map[string]any{"max_msat": 50_000, "renewal": "monthly"})
		bolt11s := bob.invoices(t, 50, 1_000)
		codes := make([]response, len(bolt11s))
		var wg sync.WaitGroup
		var changed auth.APIKey
		for i, b := range bolt11s {
			if i == 10 { // queued among the payments, not before or after them all
				wg.Go(func() {
					e.do("PATCH", "/v1/me/api-keys/"+key.ID, map[string]any{"budget": map[string]any{"max_msat": 10_000, "renewal": "monthly"}},
						alice.key...).expect(t, 200).decodeJSON(t, &changed)
				})
			}
			wg.Go(func() { codes[i] = alice.payWith(header, b) })
		}
		wg.Wait()
		paid := int64(0)
		for _, r := range codes {
			switch r.Code {
			case 201:
				paid += 1_000
			case 422:
				if p := r.problem(t); p.Code != "budget_exceeded" {
					t.Fatalf("refusal %+v", p)
				}
			default:
				t.Fatalf("answer %d %s", r.Code, r.Body)
			}
		}
		atPatch := changed.Budget.UsedMsat
		used := alice.budgetOf(t, key.ID).UsedMsat
		t.Logf("used at the PATCH %d msat, after the race %d msat, paid %d msat", atPatch, used, paid)
		if used != paid || atPatch > 50_000 {
			t.Fatalf("used %d, paid %d, at the PATCH %d", used, paid, atPatch)
		}
		if atPatch >= 10_000 && used != atPatch {
			t.Fatalf("%d msat paid after the budget fell to 10000 with %d used", used-atPatch, atPatch)
		}
		if atPatch < 10_000 && used > 10_000 {
			t.Fatalf("%d msat used past the lowered 10000", used)
		}
		e.checkLedger(t)
	})
}
