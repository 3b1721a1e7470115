package main

import (
	"context"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
)

// What may run beside a server, and what may not. `hearth serve` holds its
// data directory beside other servers (store.ShareDir, before anything
// opens it) and marks its PostgreSQL database as served (DB.MarkServing,
// before it migrates), until it exits. `hearth restore` holds both alone,
// and so refuses while any server holds either, on this machine or, for
// PostgreSQL, another. `hearth migrate` runs beside servers when it has
// nothing to apply (the documented one-shot use); with migrations to apply
// it holds the database alone too, since a running server does not know
// the schema they make. backup, ledger check and node pay run beside
// servers by design.

// holdForMigrate returns a release of what `hearth migrate` holds: nothing
// when no migration is pending, else the SQLite database's data directory
// or the PostgreSQL database alone, refused while a server holds it.
func holdForMigrate(ctx context.Context, cfg config.Config, db *store.DB) (release func(), err error) {
	if !db.Pending(ctx) {
		return func() {}, nil
	}
	if db.Dialect != store.Postgres {
		dir, err := store.OwnDir(cfg.DataDir, "migrate")
		if err != nil {
			return nil, err
		}
		return dir.Release, nil
	}
	// Every server of a PostgreSQL database marks it, wherever it runs.
	mark, err := store.OwnDatabase(ctx, storeOptions(cfg), "migrate")
	if err != nil {
		return nil, err
	}
	return mark.Release, nil
}

// storeOptions name the database that cfg configures.
func storeOptions(cfg config.Config) store.Options {
	o := store.Options{SQLitePath: cfg.SQLitePath()}
	if o.SQLitePath == "" {
		o.PostgresURL = cfg.DatabaseURL
	}
	return o
}
