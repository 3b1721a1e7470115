CREATE TABLE host_sends (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    dest        TEXT NOT NULL,
    idem_key    TEXT,
    method      TEXT NOT NULL,
    url         TEXT NOT NULL,
    headers     TEXT NOT NULL,
    body        BYTEA NOT NULL,
    state       TEXT NOT NULL,
    attempts    INTEGER NOT NULL,
    next_at     TIMESTAMPTZ NOT NULL,
    give_up_at  TIMESTAMPTZ NOT NULL,
    last_status INTEGER,
    last_error  TEXT,
    created_at  TIMESTAMPTZ NOT NULL,
    done_at     TIMESTAMPTZ,
    UNIQUE (owner, idem_key)
);

--bun:split

CREATE INDEX host_sends_due_idx ON host_sends (next_at) WHERE state = 'pending';

--bun:split

CREATE INDEX host_sends_dest_idx ON host_sends (owner, dest, id) WHERE state = 'pending';

--bun:split

CREATE INDEX host_sends_done_idx ON host_sends (done_at) WHERE state <> 'pending';
