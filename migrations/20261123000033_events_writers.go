package migrations

// Each transaction that writes an event names itself, for its remaining
// life, after the schema it writes in: its session's application_name is
// 'hearth_events:<schema>' (SET LOCAL: the name goes back when it ends).
// The outbox's horizon (core/outbox) waits only for such transactions,
// which pg_stat_activity shows before they commit: not for those of other
// schemas or other work, a migration held open by another instance in the
// same database among them. A transaction names itself once, however many
// events it writes (a batch of internal payments).
const eventsWritersUp = `
CREATE OR REPLACE FUNCTION hearth_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    writer TEXT := left('hearth_events:' || current_schema(), 63);
BEGIN
    IF current_setting('application_name') <> writer THEN
        PERFORM set_config('application_name', writer, true);
    END IF;
    PERFORM pg_current_xact_id();
    IF TG_TABLE_NAME = 'invoices' THEN
        INSERT INTO events (type, wallet_id, subject_id, created_at)
        VALUES ('invoice.settled', NEW.wallet_id, NEW.id, now());
    ELSIF NEW.status = 'Settled' THEN
        INSERT INTO events (type, wallet_id, subject_id, created_at)
        VALUES ('payment.settled', NEW.wallet_id, NEW.id, now());
    ELSE
        INSERT INTO events (type, wallet_id, subject_id, data, created_at)
        VALUES ('payment.failed', NEW.wallet_id, NEW.id, to_jsonb(NEW), now());
    END IF;
    RETURN NULL;
END
$$;
`

const eventsWritersDown = `
CREATE OR REPLACE FUNCTION hearth_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_current_xact_id();
    IF TG_TABLE_NAME = 'invoices' THEN
        INSERT INTO events (type, wallet_id, subject_id, created_at)
        VALUES ('invoice.settled', NEW.wallet_id, NEW.id, now());
    ELSIF NEW.status = 'Settled' THEN
        INSERT INTO events (type, wallet_id, subject_id, created_at)
        VALUES ('payment.settled', NEW.wallet_id, NEW.id, now());
    ELSE
        INSERT INTO events (type, wallet_id, subject_id, data, created_at)
        VALUES ('payment.failed', NEW.wallet_id, NEW.id, to_jsonb(NEW), now());
    END IF;
    RETURN NULL;
END
$$;
`

func init() {
	All.MustRegister(onPostgres(eventsWritersUp), onPostgres(eventsWritersDown))
}
