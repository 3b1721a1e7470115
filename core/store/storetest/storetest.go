// Package storetest gives tests a fresh, migrated database: SQLite always,
// and PostgreSQL when HEARTH_TEST_POSTGRES_URL is set. Every database is new
// for the test that asks for it (a temporary SQLite file, or a PostgreSQL
// schema of its own) and is removed when the test ends.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
)

// PostgresEnv names the variable that holds the PostgreSQL URL for tests.
const PostgresEnv = "HEARTH_TEST_POSTGRES_URL"

// Each runs fn as a subtest per database under test, named "sqlite" and
// "postgres". PostgreSQL is skipped, saying so, when PostgresEnv is unset.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, SQLite(t))
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, Postgres(t))
	})
}

// SQLite returns a migrated SQLite database in a temporary folder.
func SQLite(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{SQLitePath: filepath.Join(t.TempDir(), "hearth.db")})
	if err != nil {
		t.Fatalf("opening sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrating sqlite: %v", err)
	}
	return db
}

// Postgres returns a migrated PostgreSQL database in a schema of its own,
// dropped when the test ends; it skips the test when PostgresEnv is unset.
func Postgres(t testing.TB) *store.DB {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set (make test sets it up)", PostgresEnv)
	}
	db, drop, err := PostgresSchema(context.Background(), base, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return db
}

// PostgresSchema opens a migrated database in a new schema of the
// PostgreSQL database at base, with o's pool settings. drop closes it and
// removes the schema. Benchmarks use it outside tests.
func PostgresSchema(ctx context.Context, base string, o store.Options) (db *store.DB, drop func() error, err error) {
	admin, err := store.Open(ctx, store.Options{PostgresURL: base, MaxConns: 1})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	defer admin.Close()
	buf := make([]byte, 8)
	rand.Read(buf)
	schema := "hearth_test_" + hex.EncodeToString(buf)
	if _, err := admin.W.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		return nil, nil, fmt.Errorf("creating schema: %w", err)
	}
	drop = func() error {
		if db != nil {
			db.Close()
		}
		admin, err := store.Open(ctx, store.Options{PostgresURL: base, MaxConns: 1})
		if err != nil {
			return fmt.Errorf("dropping schema: %w", err)
		}
		defer admin.Close()
		if _, err := admin.W.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			return fmt.Errorf("dropping schema: %w", err)
		}
		return nil
	}
	if o.PostgresURL, err = schemaURL(base, schema); err != nil {
		return nil, nil, errors.Join(err, drop())
	}
	if db, err = store.Open(ctx, o); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("opening PostgreSQL schema: %w", err), drop())
	}
	if err := db.Migrate(ctx); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("migrating PostgreSQL: %w", err), drop())
	}
	return db, drop, nil
}

// Replica opens a second connection pool onto db's database (and, on
// PostgreSQL, its schema), as another Hearth replica would; it is closed
// when the test ends. SQLite databases are returned as they are.
func Replica(t testing.TB, db *store.DB) *store.DB {
	t.Helper()
	if db.Dialect != store.Postgres {
		return db
	}
	ctx := context.Background()
	var schema string
	if err := db.W.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatalf("reading the schema: %v", err)
	}
	u, err := schemaURL(os.Getenv(PostgresEnv), schema)
	if err != nil {
		t.Fatal(err)
	}
	replica, err := store.Open(ctx, store.Options{PostgresURL: u})
	if err != nil {
		t.Fatalf("opening a replica: %v", err)
	}
	t.Cleanup(func() { replica.Close() })
	return replica
}

// EmptySchemaURL creates an empty PostgreSQL schema, dropped when the test
// ends, and returns the URL that selects it, for tests that migrate it (or
// start servers on it) themselves; it skips the test when PostgresEnv is
// unset.
func EmptySchemaURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set (make test sets it up)", PostgresEnv)
	}
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Options{PostgresURL: base, MaxConns: 1})
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	buf := make([]byte, 8)
	rand.Read(buf)
	schema := "hearth_test_" + hex.EncodeToString(buf)
	if _, err := admin.W.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.W.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	u, err := schemaURL(base, schema)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// schemaURL is base with its search_path set to schema.
func schemaURL(base, schema string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("parsing %s: %w", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
