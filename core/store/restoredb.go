package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uptrace/bun"
)

// Holds reports whether the database that o names holds anything (and
// what, to say so): on SQLite, whether its file or WAL exists with any
// content; on PostgreSQL, whether the URL's current schema has any table,
// sequence, view or function. A restore goes only into a database that
// holds nothing, unless it is told to.
func Holds(ctx context.Context, o Options) (bool, string, error) {
	if o.SQLitePath != "" {
		for _, p := range []string{o.SQLitePath, o.SQLitePath + "-wal"} {
			info, err := os.Stat(p)
			if err == nil && info.Size() > 0 {
				return true, "the SQLite database " + p + " exists", nil
			}
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return false, "", fmt.Errorf("checking %s: %w", p, err)
			}
		}
		return false, "", nil
	}
	var n int
	schema, err := readPostgres(ctx, o.PostgresURL, func(ctx context.Context, q bun.IDB) error {
		return q.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema()) +
			(SELECT count(*) FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = current_schema())`).Scan(&n)
	})
	if err != nil {
		return false, "", err
	}
	if n > 0 {
		return true, fmt.Sprintf("schema %s of the PostgreSQL database holds %d objects", schema, n), nil
	}
	return false, "", nil
}

// InstallSQLite puts the SQLite copy at src (a file in path's folder) in
// place as the database at path: synced, then renamed over it, the old
// database's WAL and shared memory removed first (they would be replayed
// onto the copy).
func InstallSQLite(src, path string) error {
	f, err := os.OpenFile(src, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("opening the copy: %w", err)
	}
	err = errors.Join(f.Chmod(0o600), f.Sync(), f.Close())
	if err != nil {
		return fmt.Errorf("syncing the copy: %w", err)
	}
	for _, p := range []string{path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", p, err)
		}
	}
	if err := os.Rename(src, path); err != nil {
		return fmt.Errorf("installing the database: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// Read runs read on the database that o names, in one read-only
// snapshot, and says what it holds as CopyTo would have: after a restore,
// what was restored. On SQLite the database must not be in use.
func Read(ctx context.Context, o Options, read Facts) (Copy, error) {
	var c Copy
	both := func(ctx context.Context, q bun.IDB) error {
		var err error
		if c.Version, err = appliedVersion(ctx, q); err != nil {
			return err
		}
		return read(ctx, q)
	}
	if o.SQLitePath != "" {
		c.Dialect = SQLite
		return c, readSQLite(ctx, o.SQLitePath, both)
	}
	c.Dialect = Postgres
	var err error
	c.Schema, err = readPostgres(ctx, o.PostgresURL, both)
	return c, err
}

// syncDir syncs a folder, so that a rename in it survives a power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
