package rates

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The rates the instance read, by currency and time (history.go): what
// a settled record was worth when it settled is read from here. Written
// by the replica that leads the plugin, every refresh.
const historyUp = `
CREATE TABLE rates_history (
    currency TEXT NOT NULL,
    at       TIMESTAMPTZ NOT NULL,
    rate     TEXT NOT NULL,
    fixed    BOOLEAN NOT NULL,
    PRIMARY KEY (currency, at)
);
`

const historyDown = `DROP TABLE IF EXISTS rates_history;`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, historyUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, historyDown)
		return err
	})
}
