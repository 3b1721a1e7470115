package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// rowsSplit splits table rows of (id, status, event_id): Done rows with
// event ids read after the snapshot.
var rowsSplit = store.Split{Chunk: 3, Tables: []store.SplitTable{{
	Name: "rows",
	Live: func(cols string, bound int64) string {
		return fmt.Sprintf("SELECT %s FROM rows t WHERE NOT (t.status = 'Done' AND t.event_id <= %d)", cols, bound)
	},
	Final: func(cols string, from, to int64) string {
		return fmt.Sprintf("SELECT %s FROM rows t WHERE t.status = 'Done' AND t.event_id > %d AND t.event_id <= %d", cols, from, to)
	},
}}}

// A split copy restores in one transaction: whole, with the table's
// index made after its rows; or, when its rows cannot be read to the
// end, not at all (psql is stopped before it reads an end, at which it
// would commit what it has).
func TestSplitCopyRestoresWholeOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, db := migratedDatabase(t)
	for _, q := range []string{
		"CREATE TABLE rows (id TEXT PRIMARY KEY, status TEXT NOT NULL, event_id BIGINT)",
		"CREATE UNIQUE INDEX rows_event_idx ON rows (event_id)",
		`INSERT INTO rows SELECT 'r' || i, CASE WHEN i % 4 = 0 THEN 'Open' ELSE 'Done' END, hearth_event_id() FROM generate_series(1, 20) AS i`,
	} {
		if _, err := db.W.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	dump := filepath.Join(t.TempDir(), "database.pgdump")
	c, err := store.CopyTo(ctx, src, dump, func(context.Context, bun.IDB) error { return nil }, rowsSplit)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tables) != 1 || c.Tables[0].Rows != 20 || len(c.Tables[0].Deferred) != 2 {
		t.Fatalf("split tables %+v: want rows, 20 rows, its key and index deferred", c.Tables)
	}
	target := store.Options{PostgresURL: storetest.EmptyDatabaseURL(t, "")}
	// Its rows cut off: refused, and nothing written.
	whole, err := os.ReadFile(c.Tables[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(c.Tables[0].Path); err != nil {
		t.Fatal(err)
	}
	if err := store.RestorePostgres(ctx, target.PostgresURL, dump, c.Schema, false, c.Tables); err == nil {
		t.Fatal("a restore without the table's rows succeeded")
	}
	if holds, what, err := store.Holds(ctx, target); err != nil || holds {
		t.Fatalf("the failed restore wrote: %v %s %v", holds, what, err)
	}
	// Rows short of the count the copy made: refused by the check.
	short := strings.Join(strings.SplitAfter(string(whole), "\n")[1:], "")
	if err := os.WriteFile(c.Tables[0].Path, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.RestorePostgres(ctx, target.PostgresURL, dump, c.Schema, false, c.Tables); err == nil || !strings.Contains(err.Error(), "the backup 20 rows") {
		t.Fatalf("a restore of 19 rows of 20: %v", err)
	}
	if holds, _, err := store.Holds(ctx, target); err != nil || holds {
		t.Fatalf("the refused restore wrote: %v %v", holds, err)
	}
	if err := os.WriteFile(c.Tables[0].Path, whole, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.RestorePostgres(ctx, target.PostgresURL, dump, c.Schema, false, c.Tables); err != nil {
		t.Fatal(err)
	}
	var n, indexes int
	if _, err := store.Read(ctx, target, func(ctx context.Context, q bun.IDB) error {
		if err := q.QueryRowContext(ctx, "SELECT count(*) FROM rows").Scan(&n); err != nil {
			return err
		}
		return q.QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = 'rows'").Scan(&indexes)
	}); err != nil || n != 20 || indexes != 2 {
		t.Fatalf("restored %d rows with %d indexes (%v), want 20 and 2", n, indexes, err)
	}
}
