package webhooks

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/hearthwallet/hearth/migrations"
)

// Each webhook becomes an event stream of the host's sender (host_streams,
// migration 20261205000002): the outbox is its queue and a cursor its place
// in it, so nothing is written per event but the attempts log. A webhook's
// stream starts before the first event still pending in its old queue,
// else where its consumer had read to (the events after it were not
// queued yet), else at the newest event; its state and failures come
// along, and so does its attempts log. The old queue, the consumer's
// cursor, and the columns of delivery state go.
const webhooksStreamsUp = `
INSERT INTO host_streams (owner, key, wallet_id, types, url, secret, cursor, active, disabled_reason,
    head_id, head_attempts, head_since, next_at, failing_since, test_id, test_body, created_at)
SELECT 'webhooks', w.id, w.wallet_id, w.events, w.url, w.secret,
    %[1]s(COALESCE((SELECT MIN(d.event_id) - 1 FROM webhook_deliveries d
                     WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.event_id > 0), %[2]s),
          COALESCE((SELECT c.last_id FROM event_cursors c WHERE c.name = 'builtin:webhooks'), %[2]s)),
    w.active, w.disabled_reason, NULL, 0, NULL, NULL, w.failing_since, NULL, NULL, w.created_at
FROM webhooks w;

INSERT INTO host_stream_attempts (owner, key, event_id, attempt, status_code, error, duration_ms, at)
SELECT 'webhooks', webhook_id, event_id, attempt, status_code, error, duration_ms, at FROM webhook_attempts;

DELETE FROM event_cursors WHERE name = 'builtin:webhooks';
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP INDEX webhooks_due_idx;
ALTER TABLE webhooks DROP COLUMN active;
ALTER TABLE webhooks DROP COLUMN disabled_reason;
ALTER TABLE webhooks DROP COLUMN failing_since;
ALTER TABLE webhooks DROP COLUMN next_at;
`

// The newest event id on each database, and the smaller of two values.
const (
	postgresLastEvent = `(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq)`
	sqliteLastEvent   = `(SELECT COALESCE(MAX(m), 0) FROM (
    SELECT (SELECT event_id FROM invoices WHERE event_id IS NOT NULL ORDER BY event_id DESC LIMIT 1) AS m
    UNION ALL SELECT (SELECT event_id FROM payments WHERE event_id IS NOT NULL ORDER BY event_id DESC LIMIT 1)
    UNION ALL SELECT (SELECT event_id FROM plugin_events ORDER BY event_id DESC LIMIT 1)))`
)

func webhooksStreams(ctx context.Context, db *bun.DB) error {
	query := fmt.Sprintf(webhooksStreamsUp, "MIN", sqliteLastEvent)
	if db.Dialect().Name() == dialect.PG {
		query = fmt.Sprintf(webhooksStreamsUp, "LEAST", postgresLastEvent)
	}
	if _, err := db.ExecContext(ctx, query); err != nil {
		return fmt.Errorf("moving the webhooks onto the host's streams: %w", err)
	}
	return nil
}

func init() {
	migrations.All.MustRegister(webhooksStreams, func(context.Context, *bun.DB) error {
		return fmt.Errorf("the webhooks' move onto the host's streams is not undone: restore a backup taken before it")
	})
}
