package migrations

// The events of migration 20261123000031, leaner: a settled invoice or
// payment never changes again, so its event keeps no copy of it (core/outbox
// reads the row itself); only payment.failed keeps one, since a late
// success may settle the payment afterwards. Copying every row halved the
// rate of internal payments on both databases. The index by wallet goes
// too (a resumed stream reads from a recent position), and on SQLite the
// table loses AUTOINCREMENT, whose counter row was one more write per event
// (ids still only grow: pruning always keeps the newest event).
const eventsLeanPostgresUp = `
DROP TRIGGER invoices_event_insert ON invoices;
DROP TRIGGER invoices_event_update ON invoices;
DROP TRIGGER payments_event_insert ON payments;
DROP TRIGGER payments_event_update ON payments;
DROP INDEX events_wallet_idx;
ALTER TABLE events ALTER COLUMN data DROP NOT NULL;
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
CREATE TRIGGER invoices_event_insert AFTER INSERT ON invoices
    FOR EACH ROW WHEN (NEW.status = 'Settled') EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER invoices_event_update AFTER UPDATE OF status ON invoices
    FOR EACH ROW WHEN (NEW.status = 'Settled' AND OLD.status <> 'Settled') EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER payments_event_insert AFTER INSERT ON payments
    FOR EACH ROW WHEN (NEW.status IN ('Settled', 'Failed')) EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER payments_event_update AFTER UPDATE OF status ON payments
    FOR EACH ROW WHEN (NEW.status IN ('Settled', 'Failed') AND OLD.status <> NEW.status) EXECUTE FUNCTION hearth_record_event();
`

const eventsLeanPostgresDown = `
DROP TRIGGER IF EXISTS payments_event_update ON payments;
DROP TRIGGER IF EXISTS payments_event_insert ON payments;
DROP TRIGGER IF EXISTS invoices_event_update ON invoices;
DROP TRIGGER IF EXISTS invoices_event_insert ON invoices;
DELETE FROM events WHERE data IS NULL;
ALTER TABLE events ALTER COLUMN data SET NOT NULL;
CREATE INDEX events_wallet_idx ON events (wallet_id, id);
` + `
CREATE OR REPLACE FUNCTION hearth_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_current_xact_id();
    INSERT INTO events (type, wallet_id, subject_id, data, created_at)
    VALUES (CASE WHEN TG_TABLE_NAME = 'invoices' THEN 'invoice.settled'
                 WHEN NEW.status = 'Settled' THEN 'payment.settled'
                 ELSE 'payment.failed' END,
            NEW.wallet_id, NEW.id, to_jsonb(NEW), now());
    RETURN NULL;
END
$$;
CREATE TRIGGER invoices_event_insert AFTER INSERT ON invoices
    FOR EACH ROW WHEN (NEW.status = 'Settled') EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER invoices_event_update AFTER UPDATE OF status ON invoices
    FOR EACH ROW WHEN (NEW.status = 'Settled' AND OLD.status <> 'Settled') EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER payments_event_insert AFTER INSERT ON payments
    FOR EACH ROW WHEN (NEW.status IN ('Settled', 'Failed')) EXECUTE FUNCTION hearth_record_event();
CREATE TRIGGER payments_event_update AFTER UPDATE OF status ON payments
    FOR EACH ROW WHEN (NEW.status IN ('Settled', 'Failed') AND OLD.status <> NEW.status) EXECUTE FUNCTION hearth_record_event();
`

const eventsLeanSQLiteUp = `
DROP TRIGGER invoices_event_insert;
DROP TRIGGER invoices_event_update;
DROP TRIGGER payments_event_insert;
DROP TRIGGER payments_event_update;
CREATE TABLE events_lean (
    id          INTEGER PRIMARY KEY,
    type        TEXT NOT NULL,
    wallet_id   TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    data        TEXT,
    created_at  TIMESTAMPTZ NOT NULL
);
INSERT INTO events_lean (id, type, wallet_id, subject_id, data, created_at)
    SELECT id, type, wallet_id, subject_id, CASE type WHEN 'payment.failed' THEN data END, created_at FROM events;
DROP TABLE events;
ALTER TABLE events_lean RENAME TO events;
CREATE TRIGGER invoices_event_insert AFTER INSERT ON invoices WHEN NEW.status = 'Settled'
BEGIN
    INSERT INTO events (type, wallet_id, subject_id, created_at)
    VALUES ('invoice.settled', NEW.wallet_id, NEW.id, ` + sqliteNow + `);
END;
CREATE TRIGGER invoices_event_update AFTER UPDATE OF status ON invoices
    WHEN NEW.status = 'Settled' AND OLD.status <> 'Settled'
BEGIN
    INSERT INTO events (type, wallet_id, subject_id, created_at)
    VALUES ('invoice.settled', NEW.wallet_id, NEW.id, ` + sqliteNow + `);
END;
CREATE TRIGGER payments_event_insert AFTER INSERT ON payments WHEN NEW.status IN ('Settled', 'Failed')
BEGIN
    INSERT INTO events (type, wallet_id, subject_id, data, created_at)
    VALUES (CASE NEW.status WHEN 'Settled' THEN 'payment.settled' ELSE 'payment.failed' END,
            NEW.wallet_id, NEW.id, CASE NEW.status WHEN 'Failed' THEN ` + sqlitePaymentJSON + ` END, ` + sqliteNow + `);
END;
CREATE TRIGGER payments_event_update AFTER UPDATE OF status ON payments
    WHEN NEW.status IN ('Settled', 'Failed') AND OLD.status <> NEW.status
BEGIN
    INSERT INTO events (type, wallet_id, subject_id, data, created_at)
    VALUES (CASE NEW.status WHEN 'Settled' THEN 'payment.settled' ELSE 'payment.failed' END,
            NEW.wallet_id, NEW.id, CASE NEW.status WHEN 'Failed' THEN ` + sqlitePaymentJSON + ` END, ` + sqliteNow + `);
END;
`

// eventsLeanSQLiteDown goes back to migration 31's table, index and
// triggers; the events written meanwhile are dropped (like PostgreSQL's
// settled ones), having no copy of their record.
const eventsLeanSQLiteDown = `
DROP TRIGGER IF EXISTS payments_event_update;
DROP TRIGGER IF EXISTS payments_event_insert;
DROP TRIGGER IF EXISTS invoices_event_update;
DROP TRIGGER IF EXISTS invoices_event_insert;
DROP TABLE events;
CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    type        TEXT NOT NULL,
    wallet_id   TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX events_wallet_idx ON events (wallet_id, id);
` + eventsSQLiteUpTriggers

func init() {
	All.MustRegister(byDialect(eventsLeanPostgresUp, eventsLeanSQLiteUp), byDialect(eventsLeanPostgresDown, eventsLeanSQLiteDown))
}
