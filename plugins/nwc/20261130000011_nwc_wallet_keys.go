package nwc

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// A key per connection: each connection made from now on has a wallet key
// of its own (wallet_pubkey, derived from the service secret and the
// connection's id), and the relays it was paired on (relays, space
// separated; empty for every relay of the server). A connection made
// before keeps the shared service key (wallet_pubkey NULL) until it is
// paired again. The client key is unique among the shared key's live
// connections only: an app may pair twice with its own key, each time
// with another wallet key. The table is rebuilt (SQLite cannot drop a
// UNIQUE column constraint), the same statements on both databases.
const nwcWalletKeysUp = `
CREATE TABLE nwc_connections_next (
    id            TEXT PRIMARY KEY,
    wallet_id     TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    name          TEXT NOT NULL,
    pubkey        TEXT NOT NULL,
    wallet_pubkey TEXT,
    relays        TEXT NOT NULL DEFAULT '',
    methods       TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    last_used_at  TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ
);
INSERT INTO nwc_connections_next (id, wallet_id, user_id, name, pubkey, methods, created_at, last_used_at, revoked_at)
    SELECT id, wallet_id, user_id, name, pubkey, methods, created_at, last_used_at, revoked_at FROM nwc_connections;
DROP TABLE nwc_connections;
ALTER TABLE nwc_connections_next RENAME TO nwc_connections;
CREATE INDEX nwc_connections_wallet_idx ON nwc_connections (wallet_id);
CREATE UNIQUE INDEX nwc_connections_shared_pubkey_idx ON nwc_connections (pubkey) WHERE wallet_pubkey IS NULL AND revoked_at IS NULL;
CREATE UNIQUE INDEX nwc_connections_wallet_pubkey_idx ON nwc_connections (wallet_pubkey);
CREATE INDEX nwc_connections_listened_idx ON nwc_connections (revoked_at) WHERE wallet_pubkey IS NOT NULL;
`

// nwcWalletKeysDown drops the connections of their own keys (their apps
// would be answered by no key) and restores the old table.
const nwcWalletKeysDown = `
CREATE TABLE nwc_connections_prev (
    id           TEXT PRIMARY KEY,
    wallet_id    TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    pubkey       TEXT NOT NULL UNIQUE,
    methods      TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);
INSERT INTO nwc_connections_prev (id, wallet_id, user_id, name, pubkey, methods, created_at, last_used_at, revoked_at)
    SELECT id, wallet_id, user_id, name, pubkey, methods, created_at, last_used_at, revoked_at FROM nwc_connections
    WHERE wallet_pubkey IS NULL;
DROP TABLE nwc_connections;
ALTER TABLE nwc_connections_prev RENAME TO nwc_connections;
CREATE INDEX nwc_connections_wallet_idx ON nwc_connections (wallet_id);
`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nwcWalletKeysUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nwcWalletKeysDown)
		return err
	})
}
