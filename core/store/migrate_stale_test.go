package store_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A database left by a version that locked its migrations with a row, by a
// process killed while it held the row, migrates: the row is ignored, and
// the table dropped.
func TestMigrateIgnoresALeftOverLockRow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		id := "INTEGER PRIMARY KEY"
		if db.Dialect == store.Postgres {
			id = "BIGSERIAL PRIMARY KEY"
		}
		for _, q := range []string{
			"CREATE TABLE hearth_migration_locks (id " + id + ", table_name VARCHAR UNIQUE)",
			"INSERT INTO hearth_migration_locks (table_name) VALUES ('hearth_migrations')",
			"DELETE FROM hearth_migrations WHERE name = '20261123000021'",
		} {
			if _, err := db.W.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrating with a left-over lock row: %v", err)
		}
		var n int
		q := "SELECT count(*) FROM sqlite_master WHERE name = 'hearth_migration_locks'"
		if db.Dialect == store.Postgres {
			q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'hearth_migration_locks'"
		}
		if err := db.W.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatal("hearth_migration_locks is still there after migrating")
		}
	})
}
