package nwc

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// info_at is when a connection's info event was last made anew (unix
// seconds): set when a PATCH changes its methods, so that the event
// republished replaces the one the relays hold (a replaceable event wins
// by its created_at). NULL: the event is dated at the connection's
// creation, as before.
func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, `ALTER TABLE nwc_connections ADD COLUMN info_at BIGINT`)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, `ALTER TABLE nwc_connections DROP COLUMN info_at`)
		return err
	})
}
