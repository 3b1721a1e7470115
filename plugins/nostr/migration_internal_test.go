package nostr

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// 20261206000002 moves each receipt still pending on a relay onto the
// host's sender, with its attempts, next attempt and last error, given up
// 72 hours after it was queued; a relay's row names its send; one already
// published keeps its outcome and has no send.
func TestReceiptsMoveOntoTheSender(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.W.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		// The schema before the move.
		exec(`ALTER TABLE nostr_zap_relays DROP COLUMN send_id`)
		exec(`CREATE INDEX nostr_zap_relays_due_idx ON nostr_zap_relays (state, next_at)`)
		queued := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		next := queued.Add(10 * time.Minute)
		exec(`INSERT INTO nostr_zaps (invoice_id, wallet_id, ln_address_id, request, sender, anonymous, amount_msat, receipt, receipt_id, created_at)
			VALUES ('inv', 'w', 'a', '{}', 'pk', FALSE, 21000, '{"id":"rc"}', 'rc', ?)`, queued)
		exec(`INSERT INTO nostr_zap_relays (invoice_id, relay, state, attempts, next_at, last_error, published_at, created_at)
			VALUES ('inv', 'wss://down.example', 'pending', 3, ?, 'refused', NULL, ?),
			       ('inv', 'wss://up.example', 'published', 1, ?, NULL, ?, ?)`, next, queued, queued, queued, queued)

		if err := nostrSends(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		var sends []struct {
			ID        string    `bun:"id"`
			Via       string    `bun:"via"`
			URL       string    `bun:"url"`
			Body      []byte    `bun:"body"`
			State     string    `bun:"state"`
			Attempts  int       `bun:"attempts"`
			NextAt    time.Time `bun:"next_at"`
			GiveUpAt  time.Time `bun:"give_up_at"`
			LastError *string   `bun:"last_error"`
		}
		if err := db.W.NewRaw(`SELECT id, via, url, body, state, attempts, next_at, give_up_at, last_error
			FROM host_sends WHERE owner = 'nostr'`).Scan(ctx, &sends); err != nil {
			t.Fatal(err)
		}
		if len(sends) != 1 {
			t.Fatalf("sends %+v, want the pending receipt's only", sends)
		}
		s := sends[0]
		if s.Via != via || s.URL != "wss://down.example" || string(s.Body) != `{"id":"rc"}` || s.State != "pending" || s.Attempts != 3 ||
			!s.NextAt.Equal(next) || !s.GiveUpAt.Equal(queued.Add(72*time.Hour)) || s.LastError == nil || *s.LastError != "refused" {
			t.Fatalf("the moved send %+v", s)
		}
		var rows []relayRow
		if err := db.W.NewSelect().Model(&rows).OrderExpr("relay").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if rows[0].SendID == nil || *rows[0].SendID != s.ID || rows[1].SendID != nil || rows[1].State != published {
			t.Fatalf("relay rows %+v", rows)
		}
	})
}
