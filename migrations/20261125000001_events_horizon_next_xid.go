package migrations

import "strings"

// hearth_events_horizon (20261123000091) took, for each reading's mark N,
// a transaction id of its own: a commit record to write for every
// reading, up to a hundred a second under load, and, being an
// asynchronous commit, a wake-up of the WAL writer each time, whose
// flushes then competed with the payments' own. The mark needs no
// transaction of its own: it is any value that every transaction id given
// out before it is below, and the next transaction id to be given out is
// that value. age(xid) reads it without taking one (it counts from the
// current transaction's id, or, in a transaction that has none, from the
// next id: GetStableLatestTransactionId), so the reading now writes
// nothing at all.
//
// The 32-bit next id is placed in the epoch of the snapshot's xmax, which
// it is at most 2^31 ahead of (it is at least xmax: no transaction at or
// above the next id has begun). age() counts from a normal id, so from
// xmax or, in the three ids at the start of an epoch, from 3.
//
// What settles a mark is unchanged (core/outbox/horizon.go): N at or below
// a later snapshot's xmin; or, for a mark that waited, no writer of events
// below N still running. Unlike the reader's own transaction id, the next
// id may not have ended by a later snapshot (it may not have begun), so
// the writers are compared with N themselves, not through the snapshot.
var eventsHorizonNextXIDUp = strings.NewReplacer(
	"CREATE FUNCTION", "CREATE OR REPLACE FUNCTION",
	`BEGIN
    SELECT pg_current_snapshot()::text INTO snap;
`, `DECLARE
    s pg_snapshot := pg_current_snapshot();
    x BIGINT;
    ref BIGINT;
BEGIN
    snap := s::text;
`,
	`        PERFORM set_config('synchronous_commit', 'off', true);
        mark_xid := pg_current_xact_id()::text;
`, `        -- After the sequence: every writer of an id up to last_id has its
        -- transaction id already (hearth_event_id takes it first).
        x := pg_snapshot_xmax(s)::text::bigint;
        ref := greatest(x % 4294967296, 3);
        mark_xid := (x - x % 4294967296 + ref + age(ref::text::xid))::text;
`,
).Replace(eventsHorizonUp)

func init() {
	if strings.Count(eventsHorizonNextXIDUp, "age(ref::text::xid)") != 1 || strings.Contains(eventsHorizonNextXIDUp, "pg_current_xact_id") {
		panic("migrations: 20261125000001 did not find hearth_events_horizon's snapshot and mark")
	}
	back := strings.Replace(eventsHorizonUp, "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
	All.MustRegister(onPostgres(eventsHorizonNextXIDUp), onPostgres(back))
}
