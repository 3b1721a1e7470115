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
const eventsHorizonNextXIDUp = `
CREATE OR REPLACE FUNCTION hearth_events_horizon(p_after BIGINT, p_writers BOOLEAN,
    OUT snap TEXT, OUT writers TEXT, OUT last_id BIGINT, OUT mark_xid TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    s pg_snapshot := pg_current_snapshot();
    x BIGINT;
    ref BIGINT;
BEGIN
    snap := s::text;
    writers := '';
    IF p_writers THEN
        SELECT COALESCE(string_agg(backend_xid::text, ','), '') INTO writers FROM pg_stat_activity
         WHERE datname = current_database() AND backend_xid IS NOT NULL
           AND application_name = left('hearth_events:' || current_schema(), 63);
    END IF;
    SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO last_id FROM events_id_seq;
    IF last_id > p_after THEN
        -- After the sequence: every writer of an id up to last_id has its
        -- transaction id already (hearth_event_id takes it first).
        x := pg_snapshot_xmax(s)::text::bigint;
        ref := greatest(x % 4294967296, 3);
        mark_xid := (x - x % 4294967296 + ref + age(ref::text::xid))::text;
    END IF;
END
$$;
`

func init() {
	back := strings.Replace(eventsHorizonUp, "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
	All.MustRegister(onPostgres(eventsHorizonNextXIDUp), onPostgres(back))
}
