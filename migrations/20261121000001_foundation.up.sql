CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

--bun:split

CREATE TABLE wallets (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL UNIQUE,
    label          TEXT,
    available_msat BIGINT NOT NULL DEFAULT 0,
    reserved_msat  BIGINT NOT NULL DEFAULT 0 CHECK (reserved_msat >= 0),
    received_msat  BIGINT NOT NULL DEFAULT 0,
    sent_msat      BIGINT NOT NULL DEFAULT 0,
    fees_paid_msat BIGINT NOT NULL DEFAULT 0,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ
);

--bun:split

CREATE INDEX wallets_created_at_idx ON wallets (created_at, id);

--bun:split

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT,
    permissions TEXT NOT NULL,
    key_hash    TEXT NOT NULL UNIQUE,
    is_admin    BOOLEAN NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ,
    revoked_at  TIMESTAMPTZ
);

--bun:split

CREATE INDEX api_keys_user_id_idx ON api_keys (user_id, created_at);
