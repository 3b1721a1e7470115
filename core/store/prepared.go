package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite" // the pure-Go SQLite driver, also registered as "sqlite"
)

// hotTexts holds the SQLite text of every Hot query (NewHot registers it)
// and how many times a connection has prepared it (an *atomic.Int64).
var hotTexts sync.Map

// sqliteConn is what database/sql uses of a modernc.org/sqlite connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// preparedStmt is what database/sql uses of a prepared SQLite statement.
type preparedStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// openPreparing opens the SQLite database dsn with preparingConnector.
func openPreparing(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(preparingConnector{c}), nil
}

// preparingConnector opens SQLite connections that keep their Hot
// statements prepared: SQLite otherwise parses and plans every statement
// again, which cost about a fifth of the server's CPU in a payment.
type preparingConnector struct{ driver.Connector }

// Connect opens a connection and wraps it.
func (c preparingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite connection %T lacks a driver interface", conn)
	}
	return &preparingConn{sqliteConn: sc, stmts: map[string]*cachedStmt{}}, nil
}

// preparingConn is one SQLite connection with its prepared Hot statements.
// database/sql uses a connection from one goroutine at a time, so the map
// needs no lock.
type preparingConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared Hot statement; busy while rows of it are open,
// when a second use of the same text on this connection (inside one
// transaction) runs unprepared instead.
type cachedStmt struct {
	preparedStmt
	busy bool
}

// plainTexts are statements without arguments that connections keep
// prepared all the same (preparedPlain), and maxPlain the longest; written
// only while the package initialises. Queries longer than maxPlain (bun's,
// with their values in the text) are not looked up.
var (
	plainTexts = map[string]bool{}
	maxPlain   int
)

// preparedPlain registers q, a statement without arguments that every
// payment on SQLite runs (the group commit's SAVEPOINT and RELEASE), as one
// that connections keep prepared, and returns it: parsed each time, those
// were some 2 % of the CPU of a payment.
func preparedPlain(q string) string {
	plainTexts[q] = true
	maxPlain = max(maxPlain, len(q))
	hotTexts.LoadOrStore(q, new(atomic.Int64))
	return q
}

// stmt returns the prepared statement of query, preparing it on first use;
// nil for a query that is not Hot, or whose statement is busy. A query
// without arguments is never Hot, bun having written its values into the
// text, unless it is one of plainTexts.
func (c *preparingConn) stmt(ctx context.Context, query string, args []driver.NamedValue) (*cachedStmt, error) {
	if len(args) == 0 && (len(query) > maxPlain || !plainTexts[query]) {
		return nil, nil
	}
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	prepares, hot := hotTexts.Load(query)
	if !hot {
		return nil, nil
	}
	ds, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ps, ok := ds.(preparedStmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("sqlite statement %T lacks a driver interface", ds)
	}
	s := &cachedStmt{preparedStmt: ps}
	c.stmts[query] = s
	prepares.(*atomic.Int64).Add(1)
	return s, nil
}

// ExecContext runs query, prepared if it is Hot.
func (c *preparingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.stmt(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return s.ExecContext(ctx, args)
}

// QueryContext runs query, prepared if it is Hot.
func (c *preparingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.stmt(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := s.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &cachedRows{Rows: rows, stmt: s}, nil
}

// Close closes the prepared statements, then the connection.
func (c *preparingConn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	c.stmts = nil
	return errors.Join(append(errs, c.sqliteConn.Close())...)
}

// cachedRows are the rows of a cachedStmt, which they free when closed.
type cachedRows struct {
	driver.Rows
	stmt *cachedStmt
}

// Close closes the rows (resetting the statement) and frees it.
func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.stmt.busy = false
	return err
}
