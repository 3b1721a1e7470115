package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A copy made while transactions move money between two wallets, each
// move one transaction, holds whole transactions only: the two balances
// add up, in the facts read with the copy and in the database restored
// from it; the restore refuses nothing empty and the restored database is
// at the copy's migration.
func TestCopyUnderWritesRestores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const total = 1_000_000
		for i, msat := range []int64{total, 0} {
			if _, err := db.W.ExecContext(ctx, "INSERT INTO wallets (id, user_id, available_msat, received_msat, created_at) VALUES (?, ?, ?, ?, ?)",
				fmt.Sprintf("w%d", i), fmt.Sprintf("u%d", i), msat, msat, time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
		}
		var moved atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
					if _, err := tx.ExecContext(ctx, "UPDATE wallets SET available_msat = available_msat - 1 WHERE id = 'w0'"); err != nil {
						return err
					}
					_, err := tx.ExecContext(ctx, "UPDATE wallets SET available_msat = available_msat + 1 WHERE id = 'w1'")
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
				moved.Add(1)
			}
		}()
		for moved.Load() < 50 { // the copy starts under the writes
			time.Sleep(time.Millisecond) // polling the condition
		}
		src, target := optionsOf(t, db), restoreTarget(t, db)
		dst := filepath.Join(t.TempDir(), "copy")
		var at [2]int64
		sumFacts := func(into *[2]int64) store.Facts {
			return func(ctx context.Context, q bun.IDB) error {
				return q.QueryRowContext(ctx, "SELECT sum(available_msat), max(CASE WHEN id = 'w1' THEN available_msat END) FROM wallets").Scan(&into[0], &into[1])
			}
		}
		c, err := store.CopyTo(ctx, src, dst, sumFacts(&at), store.Split{})
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if at[0] != total || at[1] == 0 || c.Version != store.LatestMigration() {
			t.Fatalf("copy facts: sum %d, w1 %d (want sum %d, w1 > 0), version %q (want %q)", at[0], at[1], total, c.Version, store.LatestMigration())
		}
		if info, err := os.Stat(dst); err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("the copy: %v, mode %v", err, info.Mode())
		}
		if holds, what, err := store.Holds(ctx, target); err != nil || holds {
			t.Fatalf("empty target holds %v (%s), err %v", holds, what, err)
		}
		if holds, what, err := store.Holds(ctx, src); err != nil || !holds {
			t.Fatalf("source holds %v (%s), err %v", holds, what, err)
		}
		restoreInto(t, c, dst, target, false)
		var got [2]int64
		rc, err := store.Read(ctx, target, sumFacts(&got))
		if err != nil || got != at || rc.Version != c.Version || rc.Schema != c.Schema {
			t.Fatalf("restored: %v %+v (err %v), want %v %+v", got, rc, err, at, c)
		}
		if c.Dialect == store.Postgres {
			// Into a database that holds it already: refused by pg_restore
			// itself, all or nothing; with clean, replaced.
			if err := store.RestorePostgres(ctx, target.PostgresURL, dst, c.Schema, false, c.Tables); err == nil {
				t.Fatal("pg_restore over the restored schema succeeded without clean")
			}
			restoreInto(t, c, dst, target, true)
		}
	})
}

// optionsOf is how to open db again.
func optionsOf(t *testing.T, db *store.DB) store.Options {
	t.Helper()
	if db.Dialect == store.SQLite {
		var file string
		if err := db.R.QueryRowContext(context.Background(), "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
			t.Fatal(err)
		}
		return store.Options{SQLitePath: file}
	}
	return store.Options{PostgresURL: schemaOf(os.Getenv(storetest.PostgresEnv), schemaOfDB(t, db))}
}

// restoreTarget is an empty database of db's kind: on PostgreSQL another
// database, selecting a schema of db's schema's name (pg_restore keeps a
// dump's schema names), which does not exist there yet.
func restoreTarget(t *testing.T, db *store.DB) store.Options {
	t.Helper()
	if db.Dialect == store.SQLite {
		return store.Options{SQLitePath: filepath.Join(t.TempDir(), "restored.db")}
	}
	return store.Options{PostgresURL: storetest.EmptyDatabaseURL(t, schemaOfDB(t, db))}
}

// schemaOfDB is db's current schema.
func schemaOfDB(t *testing.T, db *store.DB) string {
	t.Helper()
	var schema string
	if err := db.R.QueryRowContext(context.Background(), "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// schemaOf is base with its search_path set to schema.
func schemaOf(base, schema string) string {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

// restoreInto restores the copy at dst into target.
func restoreInto(t *testing.T, c store.Copy, dst string, target store.Options, clean bool) {
	t.Helper()
	ctx := context.Background()
	if c.Dialect == store.SQLite {
		tmp := filepath.Join(filepath.Dir(target.SQLitePath), "incoming")
		b, err := os.ReadFile(dst)
		if err == nil {
			err = os.WriteFile(tmp, b, 0o600)
		}
		if err == nil {
			err = store.InstallSQLite(tmp, target.SQLitePath)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := store.RestorePostgres(ctx, target.PostgresURL, dst, c.Schema, clean, c.Tables); err != nil {
		t.Fatal(err)
	}
}

// The list given to pg_restore leaves out the creation of a schema that
// exists, and only that.
func TestTOCWithoutExistingSchema(t *testing.T) {
	t.Parallel()
	list := "; Archive created at 2026-11-27\n;\n4; 2615 2200 SCHEMA - public pg_database_owner\n" +
		"3349; 0 0 COMMENT - SCHEMA public pg_database_owner\n215; 1259 857911 TABLE public t hearth\n" +
		"5; 2615 2201 SCHEMA - other hearth\n"
	got := store.TOCWithout(list, "public", true)
	want := "; Archive created at 2026-11-27\n;\n;4; 2615 2200 SCHEMA - public pg_database_owner\n" +
		";3349; 0 0 COMMENT - SCHEMA public pg_database_owner\n215; 1259 857911 TABLE public t hearth\n" +
		"5; 2615 2201 SCHEMA - other hearth\n"
	if got != want {
		t.Fatalf("list:\n%s\nwant:\n%s", got, want)
	}
	if got := store.TOCWithout(list, "public", false); got != list {
		t.Fatalf("a missing schema's list changed:\n%s", got)
	}
}

// A copy of a SQLite file that does not exist fails, and creates nothing.
func TestCopyOfNoDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := store.CopyTo(context.Background(), store.Options{SQLitePath: filepath.Join(dir, "nope.db")}, filepath.Join(dir, "copy"), nil, store.Split{})
	if err == nil || !strings.Contains(err.Error(), "no SQLite database") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the copy created the database: %v", err)
	}
}

// migratedDatabase is a new PostgreSQL database, its public schema
// migrated: how to open it, and it open.
func migratedDatabase(t *testing.T) (store.Options, *store.DB) {
	t.Helper()
	o := store.Options{PostgresURL: storetest.EmptyDatabaseURL(t, "")}
	db, err := store.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return o, db
}

// A dump is restored only where the database URL selects its schema: a
// dump of public is refused by a URL that selects another, which does not
// exist yet, and that schema is not made.
func TestRestoreRefusesAnotherSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, _ := migratedDatabase(t)
	dump := filepath.Join(t.TempDir(), "dump")
	c, err := store.CopyTo(ctx, src, dump, func(context.Context, bun.IDB) error { return nil }, store.Split{})
	if err != nil || c.Schema != "public" {
		t.Fatalf("copy %+v, %v", c, err)
	}
	other := storetest.EmptyDatabaseURL(t, "elsewhere")
	if err := store.RestorePostgres(ctx, other, dump, c.Schema, false, c.Tables); err == nil || !strings.Contains(err.Error(), "selects elsewhere") {
		t.Fatalf("restore into another schema: %v", err)
	}
	if holds, what, err := store.Holds(ctx, store.Options{PostgresURL: strings.Replace(other, "search_path=elsewhere", "search_path=public", 1)}); err != nil || holds {
		t.Fatalf("the refused restore wrote: %v %s %v", holds, what, err)
	}
}
