CREATE TABLE plugins (
    name       TEXT PRIMARY KEY,
    version    TEXT NOT NULL,
    manifest   TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    wasm       BYTEA NOT NULL,
    state      TEXT NOT NULL,
    granted    TEXT NOT NULL DEFAULT '',
    wallet_id  TEXT,
    config     TEXT NOT NULL DEFAULT '{}',
    error      TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ
);

--bun:split

CREATE TABLE plugin_kv (
    plugin     TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      BYTEA NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (plugin, key)
);
