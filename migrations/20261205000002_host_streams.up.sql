-- The host's event streams (host/stream.go): a destination subscribed to
-- a wallet's events of some types, delivered in order, at least once, from
-- a cursor over the outbox; nothing is written per event delivered but
-- the attempts log, in batches. head_* is the event being retried.
CREATE TABLE host_streams (
    owner           TEXT NOT NULL,
    key             TEXT NOT NULL,
    wallet_id       TEXT NOT NULL,
    types           TEXT NOT NULL,
    url             TEXT NOT NULL,
    secret          TEXT NOT NULL,
    cursor          BIGINT NOT NULL,
    active          BOOLEAN NOT NULL,
    disabled_reason TEXT,
    head_id         BIGINT,
    head_attempts   INTEGER NOT NULL,
    head_since      TIMESTAMPTZ,
    next_at         TIMESTAMPTZ,
    failing_since   TIMESTAMPTZ,
    test_id         BIGINT,
    test_body       TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (owner, key)
);

--bun:split

CREATE TABLE host_stream_attempts (
    owner       TEXT NOT NULL,
    key         TEXT NOT NULL,
    event_id    BIGINT NOT NULL,
    attempt     INTEGER NOT NULL,
    status_code INTEGER,
    error       TEXT,
    duration_ms BIGINT NOT NULL,
    at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (owner, key, event_id, attempt)
);

--bun:split

CREATE INDEX host_stream_attempts_at_idx ON host_stream_attempts (owner, key, at);
