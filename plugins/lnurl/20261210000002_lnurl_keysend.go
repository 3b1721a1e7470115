package lnurl

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// Whether a Lightning Address publishes its keysend address
// (/.well-known/keysend/<username>, keysend.go): off until its owner turns
// it on.
const lnurlKeysendUp = `ALTER TABLE ln_addresses ADD COLUMN allows_keysend BOOLEAN NOT NULL DEFAULT false`

const lnurlKeysendDown = `ALTER TABLE ln_addresses DROP COLUMN allows_keysend`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, lnurlKeysendUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, lnurlKeysendDown)
		return err
	})
}
