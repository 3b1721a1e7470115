package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Invoices carry a plugin's tag (ledger.Tag: the plugin that made the
// invoice and a value of its own) instead of the Lightning Address's
// ln_address_id, the one feature core knew by name (issue 35). The
// Lightning Address's invoices become plugin lnurl's, tagged with their
// address; their records still show ln_address_id (the field lnurl shows
// its tags under, kept with each invoice since 20261204000003). The two
// partial indexes that
// served the Lightning Address serve every tag now: the events of tagged
// invoices (invoices_tagged_event_idx) and, on PostgreSQL, their lookup by
// payment hash when read through an internal payment (invoices_tagged_idx,
// 20261126000001), so that a consumer that wants tagged invoices (Nostr's
// zaps, a plugin's own) reads those alone.
const invoiceTagsUp = `
ALTER TABLE invoices ADD COLUMN tag_plugin TEXT;
ALTER TABLE invoices ADD COLUMN tag TEXT;
UPDATE invoices SET tag_plugin = 'lnurl', tag = ln_address_id WHERE ln_address_id IS NOT NULL;
DROP INDEX IF EXISTS invoices_addressed_event_idx;
DROP INDEX IF EXISTS invoices_addressed_idx;
ALTER TABLE invoices DROP COLUMN ln_address_id;
CREATE INDEX invoices_tagged_event_idx ON invoices (event_id) WHERE tag IS NOT NULL;
`

const invoiceTagsUpPG = `
CREATE INDEX invoices_tagged_idx ON invoices (payment_hash) WHERE tag IS NOT NULL;
`

const invoiceTagsDown = `
ALTER TABLE invoices ADD COLUMN ln_address_id TEXT;
UPDATE invoices SET ln_address_id = tag WHERE tag_plugin = 'lnurl';
DROP INDEX IF EXISTS invoices_tagged_event_idx;
DROP INDEX IF EXISTS invoices_tagged_idx;
ALTER TABLE invoices DROP COLUMN tag;
ALTER TABLE invoices DROP COLUMN tag_plugin;
CREATE INDEX invoices_addressed_event_idx ON invoices (event_id) WHERE ln_address_id IS NOT NULL;
`

const invoiceTagsDownPG = `
CREATE INDEX invoices_addressed_idx ON invoices (payment_hash) WHERE ln_address_id IS NOT NULL;
`

func init() {
	All.MustRegister(both(invoiceTagsUp, invoiceTagsUpPG), both(invoiceTagsDown, invoiceTagsDownPG))
}

// both runs query on either database, then pgOnly on PostgreSQL.
func both(query, pgOnly string) func(ctx context.Context, db *bun.DB) error {
	return func(ctx context.Context, db *bun.DB) error {
		if _, err := db.ExecContext(ctx, query); err != nil {
			return fmt.Errorf("migration: %w", err)
		}
		if db.Dialect().Name() != dialect.PG {
			return nil
		}
		return onPostgres(pgOnly)(ctx, db)
	}
}
