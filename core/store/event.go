package store

import "strings"

// EventToken stands, in the text of a Hot query or a query built with
// DB.EventID, for the next event id of the transactional outbox (migration
// 20261123000031_events): the ledger writes it into the event_id of an
// invoice or payment in the statement that changes its status, so the event
// commits with the change, or not at all.
const EventToken = "{event_id}"

// The next event id on each database. PostgreSQL's comes from a sequence
// (hearth_event_id also names the transaction a writer of events, which
// core/outbox's horizon waits for). SQLite's one writer commits in order,
// so the largest id taken, plus one, is the next; each read is the top of
// a partial index (or, of the plugins' events, the primary key).
const (
	postgresEventID = "hearth_event_id()"
	sqliteEventID   = `(SELECT COALESCE(MAX(m), 0) + 1 FROM (
		SELECT (SELECT event_id FROM invoices WHERE event_id IS NOT NULL ORDER BY event_id DESC LIMIT 1) AS m
		UNION ALL
		SELECT (SELECT event_id FROM payments WHERE event_id IS NOT NULL ORDER BY event_id DESC LIMIT 1)
		UNION ALL
		SELECT (SELECT event_id FROM plugin_events ORDER BY event_id DESC LIMIT 1)))`
)

// EventID returns the SQL expression of the next event id on db.
func (db *DB) EventID() string {
	if db.Dialect == Postgres {
		return postgresEventID
	}
	return sqliteEventID
}

// withEventID writes each database's expression in place of EventToken.
func withEventID(q string, dialect Dialect) string {
	if !strings.Contains(q, EventToken) {
		return q
	}
	if dialect == Postgres {
		return strings.ReplaceAll(q, EventToken, postgresEventID)
	}
	return strings.ReplaceAll(q, EventToken, sqliteEventID)
}
