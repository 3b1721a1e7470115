package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
)

// The SQLite database and its WAL and shared-memory files are the owner's
// only, even in a folder others may read and when an older version left
// them readable; a missing folder is created 0700.
func TestSQLiteFilesArePrivate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(open, "fresh", "data")
	left := filepath.Join(open, "left")
	if err := os.Mkdir(left, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hearth.db", "hearth.db-wal", "hearth.db-shm"} {
		// Empty files: SQLite takes an empty database, WAL or index as new.
		if err := os.WriteFile(filepath.Join(left, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(left, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{open, fresh, left} {
		path := filepath.Join(dir, "hearth.db")
		db, err := store.Open(ctx, store.Options{SQLitePath: path})
		if err != nil {
			t.Fatalf("opening %s: %v", path, err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.W.ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES ('k', 'v', CURRENT_TIMESTAMP)"); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if perm := info.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s has mode %04o, want 0600", p, perm)
			}
		}
		db.Close()
	}
	for _, dir := range []string{filepath.Dir(fresh), fresh} {
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != 0o700 {
			t.Errorf("created folder %s has mode %04o, want 0700", dir, perm)
		}
	}
}

// A database folder that group or others may write is refused, saying so.
func TestSQLiteRefusesAFolderOthersMayWrite(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702} {
		dir := t.TempDir()
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(context.Background(), store.Options{SQLitePath: filepath.Join(dir, "hearth.db")})
		if err == nil {
			db.Close()
			t.Fatalf("opened a database in a folder of mode %04o", mode)
		}
		if !strings.Contains(err.Error(), "writable by group or others") {
			t.Fatalf("folder of mode %04o: %v, want a clear refusal", mode, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !os.IsNotExist(err) {
			t.Fatalf("the refused folder got a database file: %v", err)
		}
	}
}
