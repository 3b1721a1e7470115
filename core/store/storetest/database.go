package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
)

// EmptyDatabaseURL creates an empty PostgreSQL database of its own (not a
// schema of the test database: a restore of a dump of the public schema
// needs a database), dropped when the test ends, and returns its URL with
// search_path set to schema when schema is not empty. It skips the test
// when PostgresEnv is unset. The role of PostgresEnv needs CREATEDB
// (scripts/postgres.sh gives it).
func EmptyDatabaseURL(t testing.TB, schema string) string {
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
	name := "hearth_test_db_" + hex.EncodeToString(buf)
	if _, err := admin.W.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating database: %v", err)
	}
	// Cleanups run last in, first out: what the test starts afterwards
	// (server processes) is stopped before the drop; FORCE ends any
	// session still left.
	t.Cleanup(func() {
		if _, err := admin.W.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parsing %s: %v", PostgresEnv, err)
	}
	u.Path = "/" + name
	if schema != "" {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
	}
	return u.String()
}
