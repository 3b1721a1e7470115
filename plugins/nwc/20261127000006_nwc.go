package nwc

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The tables of the built-in NWC plugin, read and written by it alone: its
// service key (one row, the first stored wins between replicas), its
// connections (each the delegation of the same id, with the client's
// public key), the answers it gave by request event (the signed response
// events, so that a request sent again gets them again), and its
// notifications by connection, outbox event and relay, until published.
const nwcUp = `
CREATE TABLE nwc_keys (
    id         INTEGER PRIMARY KEY,
    secret     TEXT NOT NULL,
    pubkey     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE nwc_connections (
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
CREATE INDEX nwc_connections_wallet_idx ON nwc_connections (wallet_id);
CREATE TABLE nwc_requests (
    event_id      TEXT PRIMARY KEY,
    connection_id TEXT NOT NULL,
    method        TEXT NOT NULL,
    responses     TEXT,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE TABLE nwc_notifications (
    connection_id TEXT NOT NULL,
    event_id      BIGINT NOT NULL,
    relay         TEXT NOT NULL,
    events        TEXT NOT NULL,
    state         TEXT NOT NULL,
    attempts      INTEGER NOT NULL,
    next_at       TIMESTAMPTZ NOT NULL,
    last_error    TEXT,
    published_at  TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (connection_id, event_id, relay)
);
CREATE INDEX nwc_notifications_due_idx ON nwc_notifications (state, next_at);
`

const nwcDown = `DROP TABLE IF EXISTS nwc_notifications; DROP TABLE IF EXISTS nwc_requests;
DROP TABLE IF EXISTS nwc_connections; DROP TABLE IF EXISTS nwc_keys;`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nwcUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nwcDown)
		return err
	})
}
