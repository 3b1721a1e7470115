package migrations

// hearth_events_horizon reads, on PostgreSQL, in one round trip, what the
// outbox's horizon (core/outbox/horizon.go) needs to move its head: the
// last value of events_id_seq, then — in a statement of its own, so taken
// after that read — the snapshot of the running transactions, and, when
// p_writers is set, the transaction ids of the sessions writing events in
// this schema (hearth_event_id names them, 20261123000031_events).
//
// It replaces three statements a reading (the sequence, the next
// transaction id, and pg_stat_activity on every reading): under load the
// horizon is read up to a hundred times a second, and those readings cost
// PostgreSQL and Hearth more than the event ids themselves. The snapshot
// alone settles a reading once every transaction older than it has ended,
// which under load is the next reading; pg_stat_activity is read only for
// a reading that waits longer, to tell a writer of events from any other
// transaction (of this database or another) that runs long.
//
// The function is VOLATILE so that each of its statements takes a new
// snapshot (READ COMMITTED), and it writes nothing: it takes no
// transaction id.
const eventsHorizonUp = `
CREATE FUNCTION hearth_events_horizon(p_writers BOOLEAN, OUT last_id BIGINT, OUT snap TEXT, OUT writers TEXT)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO last_id FROM events_id_seq;
    SELECT pg_current_snapshot()::text INTO snap;
    writers := '';
    IF p_writers THEN
        SELECT COALESCE(string_agg(backend_xid::text, ','), '') INTO writers FROM pg_stat_activity
         WHERE datname = current_database() AND backend_xid IS NOT NULL
           AND application_name = left('hearth_events:' || current_schema(), 63);
    END IF;
END
$$;
`

const eventsHorizonDown = `DROP FUNCTION IF EXISTS hearth_events_horizon(BOOLEAN)`

func init() {
	All.MustRegister(onPostgres(eventsHorizonUp), onPostgres(eventsHorizonDown))
}
