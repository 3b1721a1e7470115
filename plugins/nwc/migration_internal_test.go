package nwc

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// 20261206000003 moves each notification still pending on a relay onto
// the host's sender, keyed as the plugin queues it now (so that the event
// read again queues nothing twice), given up 24 hours after it was
// queued; the plugin's queue goes.
func TestNotificationsMoveOntoTheSender(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`CREATE TABLE nwc_notifications (connection_id TEXT NOT NULL, event_id BIGINT NOT NULL, relay TEXT NOT NULL,
			events TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL, next_at TIMESTAMPTZ NOT NULL, last_error TEXT,
			published_at TIMESTAMPTZ, created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (connection_id, event_id, relay))`)
		queued := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		exec(`INSERT INTO nwc_notifications (connection_id, event_id, relay, events, state, attempts, next_at, last_error, created_at)
			VALUES ('c1', 7, 'wss://r.example', '[{"id":"a"},{"id":"b"}]', 'pending', 2, ?, 'timeout', ?),
			       ('c1', 6, 'wss://r.example', '[]', 'published', 1, ?, NULL, ?)`, queued, queued, queued, queued)

		if err := nwcSends(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		var sends []struct {
			Key      string    `bun:"idem_key"`
			Via      string    `bun:"via"`
			Body     []byte    `bun:"body"`
			Attempts int       `bun:"attempts"`
			GiveUpAt time.Time `bun:"give_up_at"`
		}
		if err := db.W.NewRaw(`SELECT idem_key, via, body, attempts, give_up_at FROM host_sends WHERE owner = 'nwc'`).Scan(ctx, &sends); err != nil {
			t.Fatal(err)
		}
		if len(sends) != 1 || sends[0].Key != notificationKey("c1", 7, "wss://r.example") || sends[0].Via != via ||
			string(sends[0].Body) != `[{"id":"a"},{"id":"b"}]` || sends[0].Attempts != 2 || !sends[0].GiveUpAt.Equal(queued.Add(24*time.Hour)) {
			t.Fatalf("sends %+v, want the pending notification's only", sends)
		}
		if _, err := db.W.ExecContext(ctx, `SELECT 1 FROM nwc_notifications`); err == nil {
			t.Error("the old queue is still there")
		}
	})
}
