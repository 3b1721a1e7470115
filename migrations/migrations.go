// Package migrations holds Hearth's schema migrations, plain SQL that runs
// unchanged on SQLite and PostgreSQL, and Go migrations for what only one of
// them has (a PostgreSQL function). They are core's tables; each built-in
// plugin keeps its own in its folder (plugins/<name>/<version>_<name>.go), which adds
// them to All when the plugin is linked in, under versions of the same
// sequence. They are applied at start and by
// `hearth migrate`, all pending ones in one transaction under the migration
// lock (store.MigrateWith): a migration must not begin a transaction of its
// own (no .tx.up.sql files) nor use what cannot run in a transaction
// (CREATE INDEX CONCURRENTLY; PRAGMA foreign_keys on SQLite).
package migrations

import (
	"embed"

	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// All is the ordered set of migrations: core's, and those of the plugins
// linked in.
var All = migrate.NewMigrations()

func init() {
	if err := All.Discover(files); err != nil {
		panic(err)
	}
}
