package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
)

// `hearth migrate` with a migration to apply refuses beside a server,
// naming it: the server would not know the schema it makes. (With none to
// apply it runs beside one: TestRestoreRefusesBesideServer.)
func TestMigrateRefusesBesideServer(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		ctx := context.Background()
		if err := run(ctx, []string{"migrate"}, newSyncWriter(), environ); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadConfig("", environ)
		if err != nil {
			t.Fatal(err)
		}
		db, err := openDB(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// A server, as `hearth serve` marks both.
		dir, err := store.ShareDir(cfg.DataDir, "serve")
		if err != nil {
			t.Fatal(err)
		}
		defer dir.Release()
		mark, err := db.MarkServing(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer mark.Release()
		// The latest migration as if this build were newer than the server's.
		if _, err := db.W.ExecContext(ctx, "DELETE FROM hearth_migrations WHERE name = ?", store.LatestMigration()); err != nil {
			t.Fatal(err)
		}
		err = run(ctx, []string{"migrate"}, newSyncWriter(), environ)
		want := fmt.Sprintf("a hearth serve, pid %d", os.Getpid())
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stop it first") {
			t.Fatalf("migrate beside a server: %v; want it to name %q", err, want)
		}
		if !db.Pending(ctx) {
			t.Fatal("the refused migrate applied the migration")
		}
	})
}
