package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// On PostgreSQL, the payments made with an API key, in the lists' order,
// for the filter by key (GET /v1/payments?api_key_id=…, and a wallet's own
// list): the admin's filter by a key alone has no wallet's index to ride.
// SQLite goes without it: there each index a payment enters costs that
// payment's commit a page more to write, and a payment made with a key is
// the common one (docs/performance.md, 2026-11-28, issue 50); its filter
// by key reads the list's order, and drops the other keys' payments.
//
// 20261129000050 made this index on both databases, and one of unpaid
// invoices, for a few hours of 2026-11-28 before it was cut down: a
// database migrated then loses what the others never had.
const listKeyIndexUp = `DROP INDEX IF EXISTS invoices_unpaid_idx`

const listKeyIndexUpPG = `CREATE INDEX IF NOT EXISTS payments_api_key_idx ON payments (api_key_id, created_at, id) WHERE api_key_id IS NOT NULL`

const listKeyIndexUpSQLite = `DROP INDEX IF EXISTS payments_api_key_idx`

const listKeyIndexDownPG = `DROP INDEX IF EXISTS payments_api_key_idx`

func init() {
	All.MustRegister(listKeyIndex, onPostgres(listKeyIndexDownPG))
}

// listKeyIndex is the up migration: the key's index where it belongs.
func listKeyIndex(ctx context.Context, db *bun.DB) error {
	q := listKeyIndexUpSQLite
	if db.Dialect().Name() == dialect.PG {
		q = listKeyIndexUpPG
	}
	for _, q := range []string{listKeyIndexUp, q} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("list key index migration: %w", err)
		}
	}
	return nil
}
