package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// oldQueue is the webhooks' schema before 20261205000003: the delivery
// state on each webhook, a queue of deliveries and an attempts log.
const oldQueue = `
ALTER TABLE webhooks ADD COLUMN active BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE webhooks ADD COLUMN failing_since TIMESTAMPTZ;
ALTER TABLE webhooks ADD COLUMN next_at TIMESTAMPTZ;
CREATE INDEX webhooks_due_idx ON webhooks (next_at) WHERE next_at IS NOT NULL;
CREATE TABLE webhook_deliveries (
    id BIGINT PRIMARY KEY, webhook_id TEXT NOT NULL, event_id BIGINT NOT NULL, body TEXT NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at TIMESTAMPTZ NOT NULL, created_at TIMESTAMPTZ NOT NULL);
CREATE TABLE webhook_attempts (
    webhook_id TEXT NOT NULL, event_id BIGINT NOT NULL, attempt INTEGER NOT NULL, status_code INTEGER, error TEXT,
    duration_ms BIGINT NOT NULL, at TIMESTAMPTZ NOT NULL, PRIMARY KEY (webhook_id, event_id, attempt));
`

// 20261205000003 makes each webhook a stream of the host's sender: one
// with deliveries pending starts before the first of them, one without
// where the old consumer had read to (or at the newest event, when that
// is older), a disabled one stays disabled with its reason; the attempts
// log comes along; the old queue and the consumer's cursor go.
func TestWebhooksMoveOntoStreams(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(oldQueue)
		now := time.Now().UTC()
		// The newest event is 20; the consumer had read to 12.
		if db.Dialect == store.Postgres {
			exec(`SELECT setval('events_id_seq', 20)`)
		} else {
			exec(`INSERT INTO plugin_events (event_id, plugin, type, wallet_id, subject_id, data, created_at)
				VALUES (20, 'p', 'p.x', 'w', 's', '{}', ?)`, now)
		}
		exec(`INSERT INTO event_cursors (name, last_id, updated_at) VALUES ('builtin:webhooks', 12, ?)`, now)
		for _, h := range []struct {
			id     string
			active bool
		}{{"pending", true}, {"caught-up", true}, {"disabled", false}} {
			var reason, failing any
			if !h.active {
				reason, failing = "Disabled after failing", now
			}
			exec(`INSERT INTO webhooks (id, wallet_id, url, events, secret, active, disabled_reason, failing_since, created_at)
				VALUES (?, 'w', 'https://hooks.example/x', 'invoice.settled payment.settled', 'whsec_x', ?, ?, ?, ?)`,
				h.id, h.active, reason, failing, now)
		}
		for i, d := range []struct {
			event int64
			state string
		}{{5, "delivered"}, {7, "pending"}, {9, "pending"}, {-3, "pending"}} {
			exec(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, body, state, attempts, next_at, created_at)
				VALUES (?, 'pending', ?, '{}', ?, 0, ?, ?)`, i+1, d.event, d.state, now, now)
		}
		exec(`INSERT INTO webhook_attempts (webhook_id, event_id, attempt, status_code, duration_ms, at)
			VALUES ('pending', 5, 1, 200, 3, ?)`, now)

		if err := webhooks.StreamsUp(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		var streams []struct {
			Key            string  `bun:"key"`
			Types          string  `bun:"types"`
			Cursor         int64   `bun:"cursor"`
			Active         bool    `bun:"active"`
			DisabledReason *string `bun:"disabled_reason"`
		}
		if err := db.W.NewRaw(`SELECT key, types, cursor, active, disabled_reason FROM host_streams
			WHERE owner = 'webhooks' ORDER BY key`).Scan(ctx, &streams); err != nil {
			t.Fatal(err)
		}
		if len(streams) != 3 {
			t.Fatalf("streams %+v", streams)
		}
		for _, s := range streams {
			want := map[string]int64{"caught-up": 12, "disabled": 12, "pending": 6}[s.Key]
			if s.Cursor != want || s.Types != "invoice.settled payment.settled" || s.Active != (s.Key != "disabled") ||
				(s.Key == "disabled") != (s.DisabledReason != nil) {
				t.Errorf("stream %+v, want its cursor at %d", s, want)
			}
		}
		var attempts, cursors int
		if err := db.W.NewRaw(`SELECT count(*) FROM host_stream_attempts WHERE owner = 'webhooks' AND key = 'pending'`).
			Scan(ctx, &attempts); err != nil || attempts != 1 {
			t.Errorf("the attempts log moved: %d %v", attempts, err)
		}
		if err := db.W.NewRaw(`SELECT count(*) FROM event_cursors WHERE name = 'builtin:webhooks'`).
			Scan(ctx, &cursors); err != nil || cursors != 0 {
			t.Errorf("the old consumer's cursor: %d %v", cursors, err)
		}
		if _, err := db.W.ExecContext(ctx, `SELECT 1 FROM webhook_deliveries`); err == nil {
			t.Error("the old queue is still there")
		}
	})
}
