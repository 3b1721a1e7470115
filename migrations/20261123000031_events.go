package migrations

import (
	"context"
	_ "embed" // the frozen function
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// The transactional outbox (core/outbox) is the ledger's own records: an
// invoice or payment that reaches a state worth an event takes a new
// event_id in the very statement that changes its status, so the event
// exists exactly when its change committed and never without it:
//
//   - invoice.settled: an invoice whose status turns Settled;
//   - payment.settled: a payment inserted Settled (internal payments), or
//     turning Settled from Pending or Failed (a late success);
//   - payment.failed: a payment turning Failed.
//
// The event's record is the row itself (a Settled record never changes
// again; a Failed payment that settles later takes a new id, the later
// event then standing for both). Ids grow with every event, invoices' and
// payments' alike: on PostgreSQL they come from the sequence events_id_seq
// through hearth_event_id(), on SQLite, whose one writer commits in order,
// from the largest id taken plus one (store.EventID). Consumers keep their
// position in event_cursors.
//
// An earlier design wrote a row to an events table from triggers: two rows
// and two trigger calls per internal payment cost PostgreSQL 20–29 % of its
// payments a second. A column and a partial index cost one index entry.
//
// hearth_event_id() first names its transaction, for its remaining life,
// a writer of events in this schema (application_name
// 'hearth_events:<schema>', SET LOCAL) and makes sure it has a transaction
// id, then takes the id: the outbox's horizon (core/outbox/horizon.go)
// waits only for such transactions before it reads ids that could still
// commit out of order.
const eventsPostgresUp = `
CREATE SEQUENCE events_id_seq;
ALTER TABLE invoices ADD COLUMN event_id BIGINT;
ALTER TABLE payments ADD COLUMN event_id BIGINT;
CREATE UNIQUE INDEX invoices_event_idx ON invoices (event_id) WHERE event_id IS NOT NULL;
CREATE UNIQUE INDEX payments_event_idx ON payments (event_id) WHERE event_id IS NOT NULL;
CREATE TABLE event_cursors (
    name        TEXT PRIMARY KEY,
    last_id     BIGINT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
CREATE FUNCTION hearth_event_id() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    writer TEXT := left('hearth_events:' || current_schema(), 63);
BEGIN
    IF current_setting('application_name') <> writer THEN
        PERFORM set_config('application_name', writer, true);
    END IF;
    PERFORM pg_current_xact_id();
    RETURN nextval('events_id_seq');
END
$$;
`

const eventsPostgresDown = `
DROP FUNCTION IF EXISTS hearth_event_id();
DROP TABLE IF EXISTS event_cursors;
DROP INDEX IF EXISTS payments_event_idx;
DROP INDEX IF EXISTS invoices_event_idx;
ALTER TABLE payments DROP COLUMN IF EXISTS event_id;
ALTER TABLE invoices DROP COLUMN IF EXISTS event_id;
DROP SEQUENCE IF EXISTS events_id_seq;
`

const eventsSQLiteUp = `
ALTER TABLE invoices ADD COLUMN event_id BIGINT;
ALTER TABLE payments ADD COLUMN event_id BIGINT;
CREATE UNIQUE INDEX invoices_event_idx ON invoices (event_id) WHERE event_id IS NOT NULL;
CREATE UNIQUE INDEX payments_event_idx ON payments (event_id) WHERE event_id IS NOT NULL;
CREATE TABLE event_cursors (
    name        TEXT PRIMARY KEY,
    last_id     BIGINT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
`

const eventsSQLiteDown = `
DROP TABLE IF EXISTS event_cursors;
DROP INDEX IF EXISTS payments_event_idx;
DROP INDEX IF EXISTS invoices_event_idx;
ALTER TABLE payments DROP COLUMN event_id;
ALTER TABLE invoices DROP COLUMN event_id;
`

// payOwnEventsUp is hearth_pay_own (20261122000004) with the events of its
// internal payment: the invoice's invoice.settled, then the payment's
// payment.settled; frozen as this migration wrote it (the function in use
// is sql/pay_own.sql).
//
//go:embed sql/20261123000031_pay_own_events.sql
var payOwnEventsUp string

// byDialect runs pg on PostgreSQL and lite on SQLite.
func byDialect(pg, lite string) func(ctx context.Context, db *bun.DB) error {
	return func(ctx context.Context, db *bun.DB) error {
		query := lite
		if db.Dialect().Name() == dialect.PG {
			query = pg
		}
		if _, err := db.ExecContext(ctx, query); err != nil {
			return fmt.Errorf("events migration: %w", err)
		}
		return nil
	}
}

func init() {
	payOwnBack := strings.Replace(payOwnUp, "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
	All.MustRegister(byDialect(eventsPostgresUp+";"+payOwnEventsUp, eventsSQLiteUp),
		byDialect(payOwnBack+";"+eventsPostgresDown, eventsSQLiteDown))
}
