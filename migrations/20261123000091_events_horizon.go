package migrations

// hearth_events_horizon reads, on PostgreSQL, in one round trip, what the
// outbox's horizon (core/outbox/horizon.go) needs to move its head:
//
//  1. the snapshot of the running transactions, and, when p_writers is
//     set, the transaction ids of the sessions writing events in this
//     schema (hearth_event_id names them, 20261123000031_events): what
//     settles the marks of earlier readings;
//  2. then the last value of events_id_seq, L;
//  3. then, when L is above p_after (the last value the horizon knows),
//     a transaction id of its own, N: the mark of this reading. Every
//     transaction that took an event id up to L had its transaction id
//     before (hearth_event_id takes one first), so below N; once no
//     transaction below N that writes events runs, every event up to L is
//     committed or rolled back. (The snapshot's xmax would not do for N:
//     it is one past the latest transaction to end, and a writer given its
//     id after that one, still running, is above it and in no snapshot's
//     list.) The transaction commits without waiting for the disk
//     (synchronous_commit off): it writes nothing but its commit.
//
// One call replaces the three statements of each reading before (the
// sequence, the snapshot, pg_stat_activity): under load the horizon is
// read up to a hundred times a second, and pg_stat_activity, read on every
// reading, cost PostgreSQL more than the event ids themselves. The snapshot
// alone settles a mark once every transaction below N has ended, which
// under load is the next reading; pg_stat_activity is read only for a mark
// that waits longer, to tell a writer of events from any other transaction
// (of this database or another) that runs long.
//
// The function is VOLATILE so that each of its statements takes a new
// snapshot (READ COMMITTED).
const eventsHorizonUp = `
CREATE FUNCTION hearth_events_horizon(p_after BIGINT, p_writers BOOLEAN,
    OUT snap TEXT, OUT writers TEXT, OUT last_id BIGINT, OUT mark_xid TEXT)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    SELECT pg_current_snapshot()::text INTO snap;
    writers := '';
    IF p_writers THEN
        SELECT COALESCE(string_agg(backend_xid::text, ','), '') INTO writers FROM pg_stat_activity
         WHERE datname = current_database() AND backend_xid IS NOT NULL
           AND application_name = left('hearth_events:' || current_schema(), 63);
    END IF;
    SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO last_id FROM events_id_seq;
    IF last_id > p_after THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        mark_xid := pg_current_xact_id()::text;
    END IF;
END
$$;
`

const eventsHorizonDown = `DROP FUNCTION IF EXISTS hearth_events_horizon(BIGINT, BOOLEAN)`

func init() {
	All.MustRegister(onPostgres(eventsHorizonUp), onPostgres(eventsHorizonDown))
}
