package rates

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The table of the built-in rates plugin (plugins/rates), read and
// written by it alone: the currency each wallet's owner reads amounts in,
// for the wallets whose owner chose one (the others read the instance's,
// [rates] currency).
const currencyUp = `
CREATE TABLE rates_wallet_currency (
    wallet_id  TEXT PRIMARY KEY,
    currency   TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
`

const currencyDown = `DROP TABLE IF EXISTS rates_wallet_currency;`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, currencyUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, currencyDown)
		return err
	})
}
