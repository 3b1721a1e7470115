package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Servers share a data directory; a restore holds it alone, refused while
// a server holds it and refusing servers while it does, each naming the
// other.
func TestDataDirHeldByServersOrOneRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := store.ShareDir(dir, "serve")
	if err != nil {
		t.Fatal(err)
	}
	b, err := store.ShareDir(dir, "serve")
	if err != nil {
		t.Fatalf("a second server: %v", err)
	}
	wantHeld(t, func() error { _, err := store.OwnDir(dir, "restore"); return err },
		fmt.Sprintf("a hearth serve, pid %d, holds this data directory (%s): stop it first", os.Getpid(), dir))
	a.Release()
	wantHeld(t, func() error { _, err := store.OwnDir(dir, "restore"); return err }, "stop it first")
	b.Release()
	b.Release() // twice is harmless
	r, err := store.OwnDir(dir, "restore")
	if err != nil {
		t.Fatalf("with no server: %v", err)
	}
	wantHeld(t, func() error { _, err := store.ShareDir(dir, "serve"); return err },
		fmt.Sprintf("a hearth restore, pid %d, holds this data directory (%s): wait for it to finish", os.Getpid(), dir))
	r.Release()
	if _, err := store.ShareDir(dir, "serve"); err != nil {
		t.Fatalf("after the restore: %v", err)
	}
}

// On PostgreSQL the mark is in the database, so it holds across machines:
// a restore is refused while a server's session marks it, naming the
// server's pid and host, and a server is refused while a restore holds it.
func TestDatabaseMarkedByServersOrOneRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.EmptySchemaURL(t)
	db, err := store.Open(ctx, store.Options{PostgresURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mark, err := db.MarkServing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	o := store.Options{PostgresURL: url}
	wantHeld(t, func() error { _, err := store.OwnDatabase(ctx, o, "restore"); return err },
		fmt.Sprintf("a hearth serve, pid %d on %s, holds this database (schema ", os.Getpid(), host))
	mark.Release()
	r, err := store.OwnDatabase(ctx, o, "restore")
	if err != nil {
		t.Fatalf("with no server: %v", err)
	}
	wantHeld(t, func() error { _, err := db.MarkServing(ctx); return err }, "a hearth restore, pid ")
	r.Release()
	again, err := db.MarkServing(ctx)
	if err != nil {
		t.Fatalf("after the restore: %v", err)
	}
	again.Release()
	// Another schema of the same database is another instance.
	other, err := store.OwnDatabase(ctx, store.Options{PostgresURL: storetest.EmptySchemaURL(t)}, "restore")
	if err != nil {
		t.Fatalf("another schema: %v", err)
	}
	other.Release()
}

// wantHeld fails unless try fails with a *store.HeldError saying want.
func wantHeld(t *testing.T, try func() error, want string) {
	t.Helper()
	err := try()
	var held *store.HeldError
	if !errors.As(err, &held) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal saying %q", err, want)
	}
}
