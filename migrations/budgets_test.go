package migrations_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/migrations"
)

// 20261127000005 adds the budget columns to api_keys and payments, and
// takes them away again: the keys and payments made before it have no
// budget and nothing used, the down migration drops every column it added
// (what they held with it), and the up migration runs again on what the
// down one left.
func TestBudgetsMigrateBothWays(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// A rollback takes the later indexes on its columns first
		// (20261129000050's, 20261129000051's and 20261202000001's downs),
		// which SQLite needs to drop them.
		for _, q := range []string{`DROP INDEX api_keys_live_idx`, `DROP INDEX IF EXISTS payments_api_key_idx`,
			`DROP INDEX payments_wallet_idx`, `CREATE INDEX payments_wallet_idx ON payments (wallet_id, created_at, id)`} {
			if _, err := db.W.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := migrations.BudgetsDown(ctx, db.W); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		for _, q := range []string{
			`INSERT INTO wallets (id, user_id, created_at) VALUES ('w', 'u', ?)`,
			`INSERT INTO api_keys (id, user_id, name, permissions, key_hash, is_admin, created_by, created_at)
				VALUES ('k', 'u', 'old key', 'read:wallet', 'h', FALSE, 'admin', ?)`,
			`INSERT INTO payments (id, wallet_id, amount_msat, status, ledger, created_at)
				VALUES ('p', 'w', 1000, 'Settled', 'Internal', ?)`,
		} {
			if _, err := db.W.ExecContext(ctx, q, now); err != nil {
				t.Fatal(err)
			}
		}
		for _, col := range []string{"api_keys.budget_max_msat", "api_keys.owner_plugin", "payments.api_key_id", "payments.budget_msat"} {
			if hasColumn(ctx, db, col) {
				t.Fatalf("down, %s is still there", col)
			}
		}
		for round := 1; round <= 2; round++ {
			if err := migrations.BudgetsUp(ctx, db.W); err != nil {
				t.Fatalf("up, round %d: %v", round, err)
			}
			var key struct {
				Max     *int64  `bun:"budget_max_msat"`
				Renewal *string `bun:"budget_renewal"`
				Used    int64   `bun:"budget_used_msat"`
				Period  string  `bun:"budget_period"`
				Plugin  *string `bun:"owner_plugin"`
			}
			if err := db.W.NewRaw(`SELECT budget_max_msat, budget_renewal, budget_used_msat, budget_period, owner_plugin
				FROM api_keys WHERE id = 'k'`).Scan(ctx, &key); err != nil {
				t.Fatal(err)
			}
			if key.Max != nil || key.Renewal != nil || key.Used != 0 || key.Period != "" || key.Plugin != nil {
				t.Fatalf("round %d: a key of before has budget columns %+v", round, key)
			}
			var pay struct {
				Key    *string `bun:"api_key_id"`
				Period *string `bun:"budget_period"`
				Msat   int64   `bun:"budget_msat"`
			}
			if err := db.W.NewRaw(`SELECT api_key_id, budget_period, budget_msat FROM payments WHERE id = 'p'`).Scan(ctx, &pay); err != nil {
				t.Fatal(err)
			}
			if pay.Key != nil || pay.Period != nil || pay.Msat != 0 {
				t.Fatalf("round %d: a payment of before has budget columns %+v", round, pay)
			}
			// The columns hold a budget and its charges, up to the largest.
			if _, err := db.W.ExecContext(ctx, `UPDATE api_keys SET budget_max_msat = 2100000000000000000,
				budget_renewal = 'daily', budget_used_msat = 5, budget_period = '2026-11-27', owner_plugin = 'nwc'`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.W.ExecContext(ctx, `UPDATE payments SET api_key_id = 'k', budget_period = '2026-11-27',
				budget_msat = 5`); err != nil {
				t.Fatal(err)
			}
			if err := migrations.BudgetsDown(ctx, db.W); err != nil {
				t.Fatalf("down, round %d: %v", round, err)
			}
			for _, col := range []string{"api_keys.budget_max_msat", "api_keys.budget_renewal", "api_keys.budget_used_msat",
				"api_keys.budget_period", "api_keys.owner_plugin", "payments.api_key_id", "payments.budget_period", "payments.budget_msat"} {
				if hasColumn(ctx, db, col) {
					t.Fatalf("round %d: down left %s", round, col)
				}
			}
		}
		if err := migrations.BudgetsUp(ctx, db.W); err != nil {
			t.Fatal(err)
		}
	})
}

// hasColumn reports whether table.column can be read.
func hasColumn(ctx context.Context, db *store.DB, col string) bool {
	table, column, _ := strings.Cut(col, ".")
	var n int
	return db.W.NewRaw("SELECT COUNT("+column+") FROM "+table).Scan(ctx, &n) == nil
}
