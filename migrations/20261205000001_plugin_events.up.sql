-- The events plugins add to the outbox (host.Caller.Tx's emit): each takes
-- the next event id from the ledger's allocator (store.EventID, whose
-- SQLite expression reads this table's top too) in the transaction of the
-- change it reports, so it commits with that change or not at all, and is
-- read with the ledger's events in one order (core/outbox).
CREATE TABLE plugin_events (
    event_id   BIGINT PRIMARY KEY,
    plugin     TEXT NOT NULL,
    type       TEXT NOT NULL,
    wallet_id  TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
