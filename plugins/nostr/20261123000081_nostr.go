package nostr

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The tables of the built-in Nostr plugin (plugins/nostr), read and written
// by it alone: the server's key (one row, the first stored wins), the zap
// requests kept with their invoices (the request exactly as received, and
// its signed receipt once the invoice is settled), and the publication of
// each receipt on each relay.
const nostrUp = `
CREATE TABLE nostr_keys (
    id         INTEGER PRIMARY KEY,
    secret     TEXT NOT NULL,
    pubkey     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE nostr_zaps (
    invoice_id    TEXT PRIMARY KEY,
    wallet_id     TEXT NOT NULL,
    ln_address_id TEXT NOT NULL,
    request       TEXT NOT NULL,
    sender        TEXT NOT NULL,
    anonymous     BOOLEAN NOT NULL,
    event_id      TEXT,
    amount_msat   BIGINT NOT NULL,
    receipt       TEXT,
    receipt_id    TEXT,
    paid_at       TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX nostr_zaps_wallet_idx ON nostr_zaps (wallet_id, created_at);
CREATE TABLE nostr_zap_relays (
    invoice_id   TEXT NOT NULL,
    relay        TEXT NOT NULL,
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL,
    next_at      TIMESTAMPTZ NOT NULL,
    last_error   TEXT,
    published_at TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (invoice_id, relay)
);
CREATE INDEX nostr_zap_relays_due_idx ON nostr_zap_relays (state, next_at);
`

const nostrDown = `DROP TABLE IF EXISTS nostr_zap_relays; DROP TABLE IF EXISTS nostr_zaps; DROP TABLE IF EXISTS nostr_keys;`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nostrUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nostrDown)
		return err
	})
}
