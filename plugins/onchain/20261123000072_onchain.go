package onchain

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The tables of the built-in onchain plugin (plugins/onchain), read and
// written by it alone:
//   - onchain_addresses: the deposit addresses of each wallet; deleted_at
//     hides one from its owner and keeps it from being handed out again,
//     but a deposit that still arrives to it is credited;
//   - onchain_sync: the sync's cursor, the height below which every
//     deposit is credited (rewound by a reorg buffer at every start).
const onchainUp = `
CREATE TABLE onchain_addresses (
    id            TEXT PRIMARY KEY,
    wallet_id     TEXT NOT NULL,
    address       TEXT NOT NULL UNIQUE,
    address_type  TEXT NOT NULL,
    used          BOOLEAN NOT NULL,
    deleted_at    TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX onchain_addresses_wallet_idx ON onchain_addresses (wallet_id, created_at, id);
CREATE TABLE onchain_sync (
    name        TEXT PRIMARY KEY,
    height      BIGINT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
`

const onchainDown = `
DROP TABLE IF EXISTS onchain_sync;
DROP TABLE IF EXISTS onchain_addresses;
`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, onchainUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, onchainDown)
		return err
	})
}
