package api_test

import (
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// TestSystemStats: GET /v1/system/stats is the admin's (a user's key with
// every scope is refused, and so is the admin without read:wallet), and
// on a server whose metrics.listen is unset, as by default, it answers
// from the metrics counted all the same: the payments just made in the
// last minute and among the hour's minutes, by ledger; the embedded node
// up; the outbox's head moved past their events.
func TestSystemStats(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{events: true}, nil)
		if e.cfg.Metrics.Listen != "" {
			t.Fatalf("metrics.listen = %q, want it unset", e.cfg.Metrics.Listen)
		}
		admin := bearer(e.adminToken())
		var before metrics.Stats
		e.do("GET", "/v1/system/stats", nil, admin...).expect(t, 200).decodeJSON(t, &before)

		payer, payee := e.user("stats-payer"), e.user("stats-payee")
		if p := e.do("GET", "/v1/system/stats", nil, payer.key...).expect(t, 403).problem(t); p.Code != "admin_only" {
			t.Errorf("a user's key: %+v, want admin_only", p)
		}
		noRead := apiKey(e.makeKey(auth.AdminUserID, auth.AllScopes&^auth.NewScopes(auth.ReadWallet)))
		e.do("GET", "/v1/system/stats", nil, noRead...).expect(t, 403).problem(t)
		e.do("GET", "/v1/system/stats", nil).expect(t, 401).problem(t)

		payer.fund(t, 10_000)
		const payments = 3
		for range payments {
			payer.pay(payee.invoice(t, 1_000).LnInvoice.Bolt11).expect(t, 201)
		}
		var st metrics.Stats
		e.do("GET", "/v1/system/stats", nil, admin...).expect(t, 200).decodeJSON(t, &st)

		last := st.Payments.LastMinute
		if last.Settled != payments || last.Failed != 0 || last.ByLedger["internal"] != payments ||
			last.ByLedger["lightning"] != 0 || last.ByLedger["onchain"] != 0 {
			t.Errorf("the last minute: %+v, want %d internal payments settled", last, payments)
		}
		minutes := st.Payments.Minutes
		if len(minutes) != 60 {
			t.Fatalf("%d minutes, want 60", len(minutes))
		}
		var sum int64
		for i, m := range minutes {
			sum += m.Settled
			if i > 0 && !m.Start.Equal(minutes[i-1].Start.Add(time.Minute)) {
				t.Errorf("minute %d begins at %s, after %s", i, m.Start, minutes[i-1].Start)
			}
		}
		if end := minutes[59].Start; sum != payments || st.At.Before(end) || !st.At.Before(end.Add(time.Minute)) {
			t.Errorf("%d payments in the hour's minutes, the last beginning at %s, at %s; want %d, the last in progress", sum, end, st.At, payments)
		}
		if st.Since.After(st.At) || st.Since.Before(st.At.Add(-time.Hour)) {
			t.Errorf("since %s, at %s", st.Since, st.At)
		}
		if n := st.Node; n == nil || n.Backend != "embedded" || !n.Up {
			t.Errorf("node: %+v, want the embedded node up", n)
		}
		if len(st.Errors) != 0 {
			t.Errorf("errors: %q", st.Errors)
		}
		// The outbox's head moves once the outbox has read the payments'
		// commits, a moment after them (on PostgreSQL, when woken).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if st.Outbox == nil || before.Outbox == nil || st.Outbox.Consumers == nil {
				t.Fatalf("outbox: %+v, before %+v", st.Outbox, before.Outbox)
			}
			if st.Outbox.Head > before.Outbox.Head {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("outbox: %+v, before %+v: want its head moved", st.Outbox, before.Outbox)
			}
			e.do("GET", "/v1/system/stats", nil, admin...).expect(t, 200).decodeJSON(t, &st)
		}
	})
}

// TestSystemStatsMetricsOff: a server that counts no metrics (a
// benchmark's side without them) says so.
func TestSystemStatsMetricsOff(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, storetest.SQLite(t), envOptions{noMetrics: true}, nil)
	p := e.do("GET", "/v1/system/stats", nil, bearer(e.adminToken())...).expect(t, 503).problem(t)
	if p.Code != "metrics_off" {
		t.Errorf("metrics off: %+v, want metrics_off", p)
	}
}
