package lnurl

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The table of the built-in LNURL plugin (plugins/lnurl), read and written
// by it alone: the Lightning Addresses. Two unique indexes are the whole
// registry's rule, on both databases and under any concurrency: a username
// belongs to one address, and a wallet has one address. Usernames are
// stored lowercase (the plugin refuses any other form), so the index is
// the case-insensitive rule too.
const lnurlUp = `
CREATE TABLE ln_addresses (
    id           TEXT PRIMARY KEY,
    wallet_id    TEXT NOT NULL,
    username     TEXT NOT NULL,
    active       BOOLEAN NOT NULL,
    allows_nostr BOOLEAN NOT NULL,
    nostr_pubkey TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ
);
CREATE UNIQUE INDEX ln_addresses_username_idx ON ln_addresses (username);
CREATE UNIQUE INDEX ln_addresses_wallet_idx ON ln_addresses (wallet_id);
CREATE INDEX ln_addresses_created_idx ON ln_addresses (created_at, id);
`

const lnurlDown = `DROP TABLE IF EXISTS ln_addresses;`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, lnurlUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, lnurlDown)
		return err
	})
}
