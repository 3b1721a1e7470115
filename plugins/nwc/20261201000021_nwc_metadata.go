package nwc

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// nwc_metadata keeps the metadata an app sent with make_invoice or
// pay_invoice (NIP-47, a JSON object), by the wallet, the transaction's
// direction and its payment hash, for lookup_invoice, list_transactions
// and the notifications to return.
const nwcMetadataUp = `
CREATE TABLE nwc_metadata (
    wallet_id    TEXT NOT NULL,
    direction    TEXT NOT NULL,
    payment_hash TEXT NOT NULL,
    metadata     TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (wallet_id, direction, payment_hash)
);
`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, nwcMetadataUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, `DROP TABLE nwc_metadata`)
		return err
	})
}
