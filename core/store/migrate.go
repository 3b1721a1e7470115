package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"

	"github.com/hearthwallet/hearth/migrations"
)

// DefaultMigrateWait is how long Migrate waits, by default, for another
// process that is migrating the same database.
const DefaultMigrateWait = 10 * time.Minute

// migrateWaitLogEvery is how often a waiting Migrate says it still waits.
const migrateWaitLogEvery = 10 * time.Second

// MigrateOptions tune MigrateWith.
type MigrateOptions struct {
	// Wait bounds the wait for another process that holds the migration
	// lock. Default DefaultMigrateWait.
	Wait time.Duration
	// Holding, when set, is called with the lock held once every pending
	// migration is applied, before the transaction commits; its error
	// aborts the migration. It lets a test stop a process in the middle of
	// its migration step.
	Holding func(ctx context.Context) error
	// Log receives the wait's messages. Default slog.Default().
	Log *slog.Logger
}

// Migrate applies every pending migration; see MigrateWith.
func (db *DB) Migrate(ctx context.Context) error {
	return db.MigrateWith(ctx, MigrateOptions{})
}

// MigrateWith applies every pending migration, all of them and the record
// of them in one transaction, under a lock that dies with the process that
// holds it: replicas starting together apply each migration once, and a
// process killed half way leaves neither a half-applied schema nor a lock
// behind (its transaction is rolled back, its lock released, by the
// database itself).
//
// The lock is, on PostgreSQL, a transaction-level advisory lock taken on
// the one connection that runs the migrations; on SQLite, the database's
// own write lock (the transaction begins IMMEDIATE). The migrations table
// is created under it too. A process that finds the lock held logs so and
// waits, up to o.Wait.
func (db *DB) MigrateWith(ctx context.Context, o MigrateOptions) error {
	if o.Wait <= 0 {
		o.Wait = DefaultMigrateWait
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	conn, err := db.openMigrationConn()
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	defer conn.Close()
	if err := db.beginMigration(ctx, conn, o.Wait, o.Log); err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			// A failed statement may have broken the connection: closing it
			// rolls back as surely.
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // see above
		}
	}()
	var mdb *bun.DB
	if db.Dialect == Postgres {
		mdb = bun.NewDB(conn, pgdialect.New())
	} else {
		mdb = bun.NewDB(conn, sqlitedialect.New())
	}
	if _, err := mdb.NewCreateTable().Model((*migrate.Migration)(nil)).
		ModelTableExpr(migrationsTable).IfNotExists().Exec(ctx); err != nil {
		return fmt.Errorf("creating the migrations table: %w", err)
	}
	m := migrate.NewMigrator(mdb, migrations.All,
		migrate.WithTableName(migrationsTable),
		migrate.WithMarkAppliedOnSuccess(true))
	group, err := m.Migrate(ctx)
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	if o.Holding != nil {
		if err := o.Holding(ctx); err != nil {
			return fmt.Errorf("migrating: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("migrating: committing: %w", err)
	}
	committed = true
	if !group.IsZero() {
		o.Log.Info("applied migrations", "count", len(group.Migrations), "last", group.Migrations[len(group.Migrations)-1].Name)
	}
	return nil
}

// migrationsTable records the applied migrations.
const migrationsTable = "hearth_migrations"

// migrationLock names the advisory lock of the migrations on PostgreSQL.
const migrationLock = "migrations"

// beginMigration takes the migration lock and begins the migrations'
// transaction on conn, waiting up to wait for another holder.
func (db *DB) beginMigration(ctx context.Context, conn *sql.DB, wait time.Duration, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	waiting := func() {
		log.Info("another process is migrating the database; waiting for it to finish",
			"waited", time.Since(start).Round(time.Second), "gives_up_after", wait)
	}
	held := func(err error) error {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("the migration lock is still held by another process after %s: is one stuck migrating? %w", wait, err)
		}
		return err
	}
	if db.Dialect == Postgres {
		return held(beginPostgresMigration(ctx, conn, waiting))
	}
	return held(beginSQLiteMigration(ctx, conn, waiting))
}

// beginPostgresMigration begins a transaction on conn and takes the
// migration's advisory lock in it: it is released when the transaction
// ends, or the connection does.
func beginPostgresMigration(ctx context.Context, conn *sql.DB, waiting func()) error {
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("beginning: %w", err)
	}
	var scope string
	if err := conn.QueryRowContext(ctx, "SELECT current_database() || '.' || coalesce(current_schema(), '')").Scan(&scope); err != nil {
		return fmt.Errorf("naming the migration lock: %w", err)
	}
	key := lockKey(scope + ":" + migrationLock)
	var won bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock($1)", key).Scan(&won); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	if won {
		return nil
	}
	waiting()
	stop := every(migrateWaitLogEvery, waiting)
	defer stop()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", key); err != nil {
		return fmt.Errorf("waiting for the migration lock: %w", err)
	}
	return nil
}

// beginSQLiteMigration begins an IMMEDIATE transaction on conn, which holds
// SQLite's write lock until it ends, waiting while another connection
// holds the lock.
func beginSQLiteMigration(ctx context.Context, conn *sql.DB, waiting func()) error {
	// Short waits inside SQLite, so that the wait is logged and bounded here.
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 500"); err != nil {
		return fmt.Errorf("setting busy_timeout: %w", err)
	}
	last := time.Time{}
	for {
		_, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE")
		if err == nil {
			break
		}
		if !isBusy(err) {
			return fmt.Errorf("beginning: %w", err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for the database's write lock: %w", ctx.Err())
		}
		if time.Since(last) >= migrateWaitLogEvery {
			waiting()
			last = time.Now()
		}
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 10000"); err != nil {
		return fmt.Errorf("setting busy_timeout: %w", err)
	}
	return nil
}

// isBusy reports SQLite's SQLITE_BUSY, in any of its extended forms.
func isBusy(err error) bool {
	var liteErr interface{ Code() int }
	return errors.As(err, &liteErr) && liteErr.Code()&0xff == 5
}

// every calls fn every d until the returned stop is called.
func every(d time.Duration, fn func()) (stop func()) {
	t := time.NewTicker(d)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
		<-finished
	}
}

// Pending reports whether this build knows migrations the database has
// not applied. A database it cannot read the record of (none yet, say)
// counts as pending.
func (db *DB) Pending(ctx context.Context) bool {
	v, err := appliedVersion(ctx, db.W)
	return err != nil || v < LatestMigration()
}
