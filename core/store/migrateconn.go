package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
)

// errMigrationConnLost is what a migration meets when its one connection,
// and with it the transaction and the lock, is gone.
var errMigrationConnLost = errors.New("the migration's database connection was lost (its transaction is rolled back)")

// errNestedTx refuses a transaction inside the migrations' own: every
// migration already runs in it (a .tx.up.sql file is not needed, and would
// commit it early).
var errNestedTx = errors.New("migrations run inside one transaction: a migration must not begin its own")

// openMigrationConn opens a pool of exactly one connection, which is never
// replaced: the migrations' transaction and lock live in that session, so
// a statement must fail rather than run on a new session without them.
func (db *DB) openMigrationConn() (*sql.DB, error) {
	var c *onceConnector
	switch db.Dialect {
	case Postgres:
		inner := stdlib.GetConnector(*db.pgConfig.Copy())
		c = &onceConnector{driver: inner.Driver(), connect: func(ctx context.Context) (driver.Conn, error) {
			conn, err := inner.Connect(ctx)
			if err != nil {
				return nil, redact(err)
			}
			sc, ok := conn.(*stdlib.Conn)
			if !ok {
				conn.Close()
				return nil, fmt.Errorf("unexpected PostgreSQL driver connection %T", conn)
			}
			return pinnedPostgresConn{sc}, nil
		}}
	default:
		inner, err := sqlite.NewConnector(db.sqliteDSN)
		if err != nil {
			return nil, err
		}
		c = &onceConnector{driver: inner.Driver(), connect: func(ctx context.Context) (driver.Conn, error) {
			conn, err := inner.Connect(ctx)
			if err != nil {
				return nil, err
			}
			sc, ok := conn.(sqliteConn)
			if !ok {
				conn.Close()
				return nil, fmt.Errorf("unexpected SQLite driver connection %T", conn)
			}
			return pinnedSQLiteConn{sc}, nil
		}}
	}
	conn := sql.OpenDB(c)
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	conn.SetConnMaxIdleTime(0)
	return conn, nil
}

// onceConnector connects once; any later attempt, which database/sql makes
// only when the first connection broke, fails.
type onceConnector struct {
	driver  driver.Driver
	connect func(ctx context.Context) (driver.Conn, error)
	used    atomic.Bool
}

// Connect opens the one connection, or fails after the first.
func (c *onceConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.used.Swap(true) {
		return nil, errMigrationConnLost
	}
	return c.connect(ctx)
}

// Driver returns the underlying driver.
func (c *onceConnector) Driver() driver.Driver { return c.driver }

// pinnedPostgresConn is a pgx connection kept by database/sql between
// statements although a transaction, begun by a plain BEGIN, is open on it
// (pgx's own ResetSession would discard such a connection).
type pinnedPostgresConn struct{ *stdlib.Conn }

// ResetSession keeps the connection unless it is closed.
func (c pinnedPostgresConn) ResetSession(context.Context) error {
	if c.Conn.Conn().IsClosed() {
		return driver.ErrBadConn
	}
	return nil
}

// Begin refuses a nested transaction.
func (c pinnedPostgresConn) Begin() (driver.Tx, error) { return nil, errNestedTx }

// BeginTx refuses a nested transaction.
func (c pinnedPostgresConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return nil, errNestedTx
}

// pinnedSQLiteConn is a SQLite connection that refuses a nested
// transaction.
type pinnedSQLiteConn struct{ sqliteConn }

// Begin refuses a nested transaction.
func (c pinnedSQLiteConn) Begin() (driver.Tx, error) { return nil, errNestedTx }

// BeginTx refuses a nested transaction.
func (c pinnedSQLiteConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return nil, errNestedTx
}
