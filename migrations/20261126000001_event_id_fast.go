package migrations

import "strings"

// hearth_event_id() named its transaction a writer of events and made sure
// it had a transaction id on every call (20261123000031_events), though
// only a transaction's first call needs to: an internal payment takes two
// event ids, a batch of them up to a hundred, and each call, a PL/pgSQL
// function whose PERFORM runs a query of its own, cost some 5 µs, about a
// sixth of what the outbox added to a payment on PostgreSQL.
//
// The work of a first call moves to hearth_event_writer_id(), unchanged;
// hearth_event_id() is now a plain SQL expression that PostgreSQL inlines
// into the statement that calls it: the next value of the sequence when
// the transaction is named a writer and has its transaction id already,
// else hearth_event_writer_id(). Both conditions are checked on every
// call, not remembered: a savepoint rolled back undoes the naming (it was
// SET LOCAL), and a transaction id taken for another reason says nothing
// of the naming. So what the horizon (core/outbox/horizon.go) relies on
// still holds before every id is taken: its transaction has its
// transaction id, and is named in pg_stat_activity.
const eventIDFastUp = `
CREATE FUNCTION hearth_event_writer_id() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
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
CREATE OR REPLACE FUNCTION hearth_event_id() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$
SELECT CASE
    WHEN pg_current_xact_id_if_assigned() IS NOT NULL
     AND current_setting('application_name') = left('hearth_events:' || current_schema(), 63)
    THEN nextval('events_id_seq')
    ELSE hearth_event_writer_id()
END
$$;
`

func init() {
	back := strings.Replace(eventIDUp, "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1) +
		"DROP FUNCTION IF EXISTS hearth_event_writer_id();"
	All.MustRegister(onPostgres(eventIDFastUp), onPostgres(back))
}
