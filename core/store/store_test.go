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

func TestSQLiteCommitsReachTheDisk(t *testing.T) {
	db := openScratch(t)
	// 2 is FULL: the WAL is synced at every commit, so a power cut cannot
	// undo an answered payment.
	var w, c int
	if err := db.W.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&w); err != nil {
		t.Fatal(err)
	}
	if err := db.R.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&c); err != nil {
		t.Fatal(err)
	}
	if w != 2 || c != 2 {
		t.Errorf("PRAGMA synchronous = %d on the writer, %d on a reader; want 2 (FULL)", w, c)
	}
}

// The writer keeps its temporary files, the sub-journal of each group
// commit's SAVEPOINTs among them, in memory: spilled past 64 KiB, the
// sub-journal cost a pwrite per page of every payment after that in the
// group (4.7 % of the CPU of a payment on SQLite, loadbench -ab).
func TestSQLiteWriterKeepsItsSubJournalInMemory(t *testing.T) {
	db := openScratch(t)
	var mode int
	if err := db.W.QueryRowContext(context.Background(), "PRAGMA temp_store").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 2 {
		t.Errorf("PRAGMA temp_store = %d on the writer, want 2 (MEMORY)", mode)
	}
}
