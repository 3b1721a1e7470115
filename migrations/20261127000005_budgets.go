package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// Spending budgets on API keys (core/budget): a key's budget (its maximum
// per period and its renewal, both NULL for a key without one), what it
// has used in the period named by budget_period (empty for a budget that
// never renews, whose one period lasts for ever), and the plugin that
// holds the key for its user (owner_plugin, NULL for a key of the user's
// own). A payment keeps the key that made it (api_key_id) and, when that
// key has a budget, the period it was charged in (budget_period, NULL for
// a payment that counts against no budget) and what is charged now
// (budget_msat: the reserve while Pending, amount and fee once Settled, 0
// once Failed), so that settling or failing it gives back the difference
// in that period.
const budgetsUp = `
ALTER TABLE api_keys ADD COLUMN budget_max_msat BIGINT;
ALTER TABLE api_keys ADD COLUMN budget_renewal TEXT;
ALTER TABLE api_keys ADD COLUMN budget_used_msat BIGINT NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN budget_period TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN owner_plugin TEXT;
ALTER TABLE payments ADD COLUMN api_key_id TEXT;
ALTER TABLE payments ADD COLUMN budget_period TEXT;
ALTER TABLE payments ADD COLUMN budget_msat BIGINT NOT NULL DEFAULT 0;
`

const budgetsDown = `
ALTER TABLE payments DROP COLUMN budget_msat;
ALTER TABLE payments DROP COLUMN budget_period;
ALTER TABLE payments DROP COLUMN api_key_id;
ALTER TABLE api_keys DROP COLUMN owner_plugin;
ALTER TABLE api_keys DROP COLUMN budget_period;
ALTER TABLE api_keys DROP COLUMN budget_used_msat;
ALTER TABLE api_keys DROP COLUMN budget_renewal;
ALTER TABLE api_keys DROP COLUMN budget_max_msat;
`

func init() {
	All.MustRegister(alterBudgets(budgetsUp), alterBudgets(budgetsDown))
}

// alterBudgets runs query, the same on both databases.
func alterBudgets(query string) func(ctx context.Context, db *bun.DB) error {
	return func(ctx context.Context, db *bun.DB) error {
		if _, err := db.ExecContext(ctx, query); err != nil {
			return fmt.Errorf("budgets migration: %w", err)
		}
		return nil
	}
}
