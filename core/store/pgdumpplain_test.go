package store_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The copy of PostgreSQL is pg_dump's uncompressed custom format: the
// snapshot it is made in lasts no longer than reading the rows takes (the
// backup's archive compresses it afterwards).
func TestPostgresCopyIsUncompressed(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pg_restore"); err != nil {
		t.Skip("pg_restore is not on the PATH")
	}
	ctx := context.Background()
	u := storetest.EmptySchemaURL(t)
	db, err := store.Open(ctx, store.Options{PostgresURL: u})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy.dump")
	if _, err := store.CopyTo(ctx, store.Options{PostgresURL: u}, dst, func(context.Context, bun.IDB) error { return nil }); err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command("pg_restore", "--list", dst).CombinedOutput()
	if err != nil {
		t.Fatalf("pg_restore --list: %v: %s", err, list)
	}
	var compression string
	for _, line := range strings.Split(string(list), "\n") {
		if _, v, ok := strings.Cut(line, "Compression:"); ok {
			compression = strings.TrimSpace(v)
		}
	}
	if compression != "0" && compression != "none" {
		t.Fatalf("the dump's compression is %q, want none:\n%s", compression, list)
	}
}
