package nwc_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestBudgetRenewsAtMidnight: a connection's daily budget, spent before
// midnight UTC, takes payments again after it, with the clock moved (not
// slept); get_budget says what is used and when it renews.
func TestBudgetRenewsAtMidnight(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		midnight := time.Now().UTC().Truncate(24 * time.Hour)
		var now atomic.Pointer[time.Time]
		set := func(t time.Time) { now.Store(&t) }
		set(midnight.Add(-10 * time.Second))
		clock := func() time.Time { return *now.Load() }
		e.Ledger.SetClock(clock)
		e.App.Keys.SetClock(clock)

		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "daily", "budget": map[string]any{"max_msat": 5_000, "renewal": "daily"}})
		pay := func() string {
			t.Helper()
			bolt11, _ := k.invoice(bob, 3_000)
			return a.Call("pay_invoice", map[string]any{"invoice": bolt11}).Code()
		}
		var b struct {
			Used   int64 `json:"used_budget"`
			Renews int64 `json:"renews_at"`
		}
		if code := pay(); code != "" {
			t.Fatalf("the first payment: %s", code)
		}
		if code := pay(); code != "QUOTA_EXCEEDED" {
			t.Fatalf("past the day's budget: %q", code)
		}
		a.Call("get_budget", nil).Decode(t, &b)
		if b.Used != 3_000 || b.Renews != midnight.Unix() {
			t.Fatalf("before midnight: %+v, want renewal at %d", b, midnight.Unix())
		}
		set(midnight.Add(10 * time.Second))
		a.Call("get_budget", nil).Decode(t, &b)
		if b.Used != 0 || b.Renews != midnight.Add(24*time.Hour).Unix() {
			t.Fatalf("after midnight, before paying: %+v", b)
		}
		if code := pay(); code != "" {
			t.Fatalf("after midnight: %s", code)
		}
		a.Call("get_budget", nil).Decode(t, &b)
		if b.Used != 3_000 {
			t.Fatalf("after midnight's payment: %+v", b)
		}
	})
}
