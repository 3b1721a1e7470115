package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
)

// TestSQLiteWALIsCheckpointedInTheBackground: commits never checkpoint
// themselves, so the rows written reach the database file only through the
// background checkpointer, within a few of its periods.
func TestSQLiteWALIsCheckpointedInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hearth.db")
	db, err := store.Open(ctx, store.Options{SQLitePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	value := strings.Repeat("x", 4000)
	for i := range 500 { // about 2 MB, one transaction each
		if _, err := db.W.ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)",
			fmt.Sprint("k", i), value, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for size() < before+2_000_000 {
		if time.Now().After(deadline) {
			t.Fatalf("database file %d bytes after 10 s (%d before): the WAL was not checkpointed", size(), before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
