package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/hearthwallet/hearth/migrations"
)

// Facts reads, inside the snapshot that a copy is made of, what a backup
// records of that moment (the outbox head, the balances). q is read-only.
type Facts func(ctx context.Context, q bun.IDB) error

// Copy says what CopyTo wrote.
type Copy struct {
	Dialect Dialect
	// Schema is, on PostgreSQL, the schema the dump holds: the database
	// URL's current schema. Empty on SQLite.
	Schema string
	// Version is the last migration applied in the copy.
	Version string
	// Tables are, on PostgreSQL, the split tables' rows, in files beside
	// the dump.
	Tables []TableCopy
	// Rested is how long the split copy gave way to a busy database.
	Rested time.Duration
}

// CopyTo writes a transactionally consistent copy of the database that o
// names into dst, a file that must not exist, while the server goes on
// writing: on SQLite, VACUUM INTO on a connection of its own (one read
// transaction, so one commit is in the copy whole or not at all); on
// PostgreSQL, pg_dump --format=custom of the current schema in the
// snapshot of a REPEATABLE READ transaction of its own
// (pg_export_snapshot), with split's tables' final rows read after that
// snapshot and written beside dst (Copy.Tables; pgsplit.go). facts reads
// that very snapshot: on PostgreSQL inside the transaction whose snapshot
// pg_dump takes, on SQLite from the copy, which is the snapshot. Nothing
// is migrated or written to the database.
func CopyTo(ctx context.Context, o Options, dst string, facts Facts, split Split) (Copy, error) {
	if o.SQLitePath != "" {
		return copySQLite(ctx, o.SQLitePath, dst, facts)
	}
	return copyPostgres(ctx, o.PostgresURL, dst, facts, split)
}

// LatestMigration is the name of the last migration this build knows: a
// copy with a later one was made by a newer Hearth.
func LatestMigration() string {
	all := migrations.All.Sorted()
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1].Name
}

// copySQLite copies the SQLite database at path into dst with VACUUM INTO.
func copySQLite(ctx context.Context, path, dst string, facts Facts) (Copy, error) {
	if _, err := os.Stat(path); err != nil {
		return Copy{}, fmt.Errorf("no SQLite database to copy at %s: %w", path, err)
	}
	// VACUUM INTO writes into an empty file: made here, so that it is the
	// owner's only from the start.
	f, err := os.OpenFile(dst, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Copy{}, fmt.Errorf("creating the copy: %w", err)
	}
	if err := f.Close(); err != nil {
		return Copy{}, fmt.Errorf("creating the copy: %w", err)
	}
	// A connection of its own, not the server's pools: read-write so that
	// it may read the WAL of a running server, but it writes nothing.
	src, err := sql.Open("sqlite", sqliteFileDSN(path, "_pragma=busy_timeout(10000)"))
	if err != nil {
		return Copy{}, fmt.Errorf("opening %s: %w", path, err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	if _, err := src.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return Copy{}, fmt.Errorf("copying %s (VACUUM INTO): %w", path, err)
	}
	c := Copy{Dialect: SQLite}
	err = readSQLite(ctx, dst, func(ctx context.Context, q bun.IDB) error {
		var err error
		if c.Version, err = appliedVersion(ctx, q); err != nil {
			return err
		}
		return facts(ctx, q)
	})
	return c, err
}

// readSQLite runs read on the SQLite file at path, opened read-only and
// immutable: a copy nobody writes, of which SQLite then makes no -wal or
// -shm file.
func readSQLite(ctx context.Context, path string, read Facts) error {
	db, err := sql.Open("sqlite", sqliteFileDSN(path, "mode=ro&immutable=1"))
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return read(ctx, bun.NewDB(db, sqlitedialect.New()))
}

// sqliteFileDSN is the driver's name of the file at path, with query.
func sqliteFileDSN(path, query string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + query
}

// appliedVersion is the last migration applied in the database q reads.
func appliedVersion(ctx context.Context, q bun.IDB) (string, error) {
	var v sql.NullString
	if err := q.QueryRowContext(ctx, "SELECT max(name) FROM "+migrationsTable).Scan(&v); err != nil {
		return "", fmt.Errorf("reading the applied migrations: %w", err)
	}
	if !v.Valid {
		return "", errors.New("the database has no migration applied")
	}
	return v.String, nil
}
