// Package store opens Hearth's database, SQLite or PostgreSQL, behind one
// type, applies the migrations, and runs transactions.
//
// SQLite follows the embedded-database practice: WAL, busy_timeout, a pool of
// readers and a single writer connection whose transactions begin IMMEDIATE,
// so writers queue in Go instead of failing with SQLITE_BUSY. PostgreSQL uses
// one pgx pool for both, which serves waiting callers in order.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// Dialect names the database engine in use.
type Dialect string

// The supported databases.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database: W takes every write and every transaction, R serves
// plain reads. For PostgreSQL both are the same pool.
type DB struct {
	W       *bun.DB
	R       *bun.DB
	Dialect Dialect

	checkpoint *checkpointer   // SQLite only
	sqliteDSN  string          // SQLite only: for Migrate's connection
	group      *groupCommitter // SQLite only: Tx's group commit

	pool     *pgxpool.Pool   // PostgreSQL only
	pgConfig *pgx.ConnConfig // PostgreSQL only: for Watch's connections
	watchState
	lockState
}

// Options say which database to open.
type Options struct {
	// SQLitePath, when set, opens that SQLite file (creating its folder).
	SQLitePath string
	// PostgresURL, when SQLitePath is empty, opens PostgreSQL.
	PostgresURL string
	// MaxConns caps the PostgreSQL pool and the SQLite reader pool. Default 16.
	MaxConns int
}

// Open opens the database described by o. It does not migrate.
func Open(ctx context.Context, o Options) (*DB, error) {
	if o.MaxConns <= 0 {
		o.MaxConns = 16
	}
	var db *DB
	var err error
	if o.SQLitePath != "" {
		db, err = openSQLite(o)
	} else {
		db, err = openPostgres(o)
	}
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func openSQLite(o Options) (*DB, error) {
	if err := PrivateDir(filepath.Dir(o.SQLitePath)); err != nil {
		return nil, err
	}
	if err := privateSQLiteFiles(o.SQLitePath); err != nil {
		return nil, err
	}
	// busy_timeout comes first so that every later pragma already waits.
	// synchronous(FULL): every commit is on the disk before anyone is
	// told; with NORMAL, WAL's default, a power cut can undo the last
	// payments after they were answered. The group commit pays one sync
	// for a whole group.
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_time_format=sqlite"
	dsn := "file:" + (&url.URL{Path: o.SQLitePath}).EscapedPath() + "?" + pragmas
	// temp_store(MEMORY) keeps the writer's sub-journal in memory: each
	// transaction of a group commit runs in a SAVEPOINT, whose sub-journal
	// holds the pages it changes; past 64 KiB SQLite spilled it to a
	// temporary file, a pwrite per page for the rest of the group (the
	// payments' event indexes took them past it: docs/performance.md,
	// 2026-11-27, sixth session).
	w, err := openPreparing(dsn + "&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, fmt.Errorf("opening sqlite writer: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	r, err := openPreparing(dsn + "&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening sqlite readers: %w", err)
	}
	r.SetMaxOpenConns(o.MaxConns)
	r.SetMaxIdleConns(o.MaxConns)
	r.SetConnMaxIdleTime(0)
	cp, err := startCheckpointer(dsn)
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	wdb := bun.NewDB(w, sqlitedialect.New())
	return &DB{
		W:          wdb,
		R:          bun.NewDB(r, sqlitedialect.New()),
		Dialect:    SQLite,
		checkpoint: cp,
		sqliteDSN:  dsn,
		group:      startGroupCommitter(wdb),
	}, nil
}

func openPostgres(o Options) (*DB, error) {
	if o.PostgresURL == "" {
		return nil, errors.New("no database configured")
	}
	cfg, err := pgxpool.ParseConfig(o.PostgresURL)
	if err != nil {
		return nil, fmt.Errorf("parsing database URL: %w", redact(err))
	}
	// bun writes every value into the SQL text itself, so each statement
	// is new to the server: pgx's default of preparing and caching every
	// distinct text would cost an extra round trip per statement and churn
	// its cache. The simple protocol sends the text in one round trip.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	// The connections are pgxpool's, lent to database/sql one statement
	// or transaction at a time (it keeps none idle itself): database/sql
	// hands a freed connection to a random waiter, pgxpool to the one that
	// has waited longest. Under load that order is the latency tail: with
	// 50 clients on 16 connections it took the p99 of the bare payment
	// writes from 27 to 19 ms.
	cfg.MaxConns = int32(o.MaxConns)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("opening database pool: %w", redact(err))
	}
	sqldb := stdlib.OpenDBFromPool(pool)
	db := bun.NewDB(sqldb, pgdialect.New())
	return &DB{W: db, R: db, Dialect: Postgres, pool: pool, pgConfig: cfg.ConnConfig}, nil
}

// redact keeps a password in a database URL out of error messages.
func redact(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "://"); i >= 0 {
		if j := strings.Index(msg[i:], "@"); j >= 0 {
			return errors.New(msg[:i+3] + "…" + msg[i+j:])
		}
	}
	return err
}

// Close closes both pools.
func (db *DB) Close() error {
	var err error
	db.closeWatches()
	db.closeLocks()
	if db.group != nil {
		db.group.close()
	}
	if db.checkpoint != nil {
		err = db.checkpoint.close()
	}
	err = errors.Join(err, db.W.Close())
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	if db.pool != nil {
		db.pool.Close()
	}
	return err
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.W.PingContext(ctx); err != nil {
		return fmt.Errorf("pinging database: %w", redact(err))
	}
	return nil
}

// Tx runs fn in one transaction on the writer: committed when fn returns nil,
// rolled back otherwise. A transaction that PostgreSQL aborted to break a
// deadlock or a serialization conflict is run again (fn must therefore have
// no effects outside the transaction). On SQLite, transactions that wait
// for the writer together commit together (see group.go), and one that has
// begun runs to its end even if ctx is cancelled meanwhile.
func (db *DB) Tx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if db.group != nil {
		return db.group.tx(ctx, fn)
	}
	return retried(func() error { return db.W.RunInTx(ctx, nil, fn) })
}

// Write runs exec, one write statement, as a transaction of its own: on
// SQLite through the group commit, so that it shares its sync to the disk
// with the transactions waiting beside it instead of taking the writer
// for a sync of its own; on PostgreSQL directly, retried like Statement.
func (db *DB) Write(ctx context.Context, exec func(ctx context.Context, w bun.IDB) (sql.Result, error)) (sql.Result, error) {
	var res sql.Result
	run := func(ctx context.Context, w bun.IDB) error {
		var err error
		res, err = exec(ctx, w)
		return err
	}
	if db.group != nil {
		err := db.group.tx(ctx, func(ctx context.Context, tx bun.Tx) error { return run(ctx, tx) })
		return res, err
	}
	err := db.Statement(ctx, func(ctx context.Context, w *bun.DB) error { return run(ctx, w) })
	return res, err
}

// Statement runs fn, one statement on the writer outside any transaction (a
// transaction of its own), again if PostgreSQL aborted it to break a
// deadlock or a serialization conflict, like Tx.
func (db *DB) Statement(ctx context.Context, fn func(ctx context.Context, w *bun.DB) error) error {
	return retried(func() error { return fn(ctx, db.W) })
}

// retried runs run, up to 10 times while PostgreSQL aborts it to break a
// deadlock or a serialization conflict.
func retried(run func() error) error {
	for attempt := 1; ; attempt++ {
		err := run()
		if err == nil || attempt == 10 || !IsRetryable(err) {
			return err
		}
	}
}

// Raised returns the SQLSTATE and message of an error that PostgreSQL
// raised (code is "" for any other error): how a PostgreSQL function
// reports a refusal of its own.
func Raised(err error) (code, message string) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code, pgErr.Message
	}
	return "", ""
}

// IsRetryable reports PostgreSQL's deadlock_detected and
// serialization_failure, after which the whole transaction may be retried.
func IsRetryable(err error) bool {
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) {
		return pgErr.SQLState() == "40P01" || pgErr.SQLState() == "40001"
	}
	return false
}

// IsUniqueViolation reports whether err is a unique-constraint failure on
// either database.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pgErr interface{ SQLState() string }
	if errors.As(err, &pgErr) {
		return pgErr.SQLState() == "23505"
	}
	var liteErr interface{ Code() int }
	if errors.As(err, &liteErr) {
		// SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY.
		return liteErr.Code() == 2067 || liteErr.Code() == 1555
	}
	return false
}

// Executor runs queries: the writer pool or a transaction.
type Executor = bun.IDB

// Page selects a slice of a list ordered by creation time.
type Page struct {
	Limit  int
	Offset int
	// Asc orders oldest first; the default is newest first.
	Asc bool
	// After, when set, keeps the rows that follow it in the list's order;
	// Before those that precede it, read nearest first (cursor.go).
	After, Before *Cursor
}

// Apply orders q by created_at (then id, for a stable order) and limits it.
func (p Page) Apply(q *bun.SelectQuery) *bun.SelectQuery { return p.ApplyKey(q, "id") }

// ApplyKey is Apply for a table whose rows' key, after created_at, is the
// column id (a plugin's zaps: invoice_id).
func (p Page) ApplyKey(q *bun.SelectQuery, id string) *bun.SelectQuery {
	dir := " DESC"
	if p.ascending() {
		dir = " ASC"
	}
	q = p.keyset(q, id)
	if p.Limit <= 0 {
		p.Limit = 100
	}
	return q.OrderExpr("created_at" + dir + ", " + id + dir).Limit(p.Limit).Offset(p.Offset)
}
