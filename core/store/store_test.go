package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/uptrace/bun"
)

func TestMigrateIsIdempotentAndUniqueViolationsAreRecognised(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		insert := func() error {
			return db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, err := tx.ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "k", "v", time.Now().UTC())
				return err
			})
		}
		if err := insert(); err != nil {
			t.Fatal(err)
		}
		err := insert()
		if !store.IsUniqueViolation(err) {
			t.Fatalf("duplicate insert: err = %v, want a unique violation", err)
		}
		if store.IsUniqueViolation(context.Canceled) {
			t.Fatal("context.Canceled is not a unique violation")
		}
	})
}
