package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// On PostgreSQL the servers of an instance may run on other machines than
// a restore, so the data directory's lock cannot tell it about them. Each
// `hearth serve` therefore marks the database itself: a shared session
// advisory lock on a connection of its own, named in pg_stat_activity's
// application_name ("hearth serve pid N on HOST"), which PostgreSQL
// releases when the session ends, however the process ends. A command that
// must not run beside a server takes the same lock alone, or finds who
// holds it.

// servingLock names the advisory lock that servers share.
const servingLock = "serving"

// Serving is this process's mark on the database as one of its servers,
// or as the one process that holds it alone.
type Serving struct {
	conn   *sql.Conn // nil on SQLite
	unlock string    // the statement that gives the lock up
	pool   *sql.DB   // a pool of its own to close after conn, or nil
}

// MarkServing marks the database as served by this process, beside the
// other servers. It refuses, with a *HeldError, while a process holds the
// database alone (a restore). SQLite has no mark: its data directory's lock
// (ShareDir) does the same there.
func (db *DB) MarkServing(ctx context.Context) (*Serving, error) {
	if db.Dialect != Postgres {
		return &Serving{}, nil
	}
	conn, err := db.W.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("marking the database as served: connecting: %w", err)
	}
	s, err := holdServing(ctx, conn, "current_schema()", "pg_try_advisory_lock_shared", "serve",
		"wait for it to finish, then start again")
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

// OwnDatabase holds the PostgreSQL database that o names alone, as
// command: it refuses, with a *HeldError, while a server has marked it
// (MarkServing), wherever that server runs. On SQLite, and on a schema
// that does not exist yet (no server can hold it), it holds nothing.
func OwnDatabase(ctx context.Context, o Options, command string) (*Serving, error) {
	if o.SQLitePath != "" {
		return &Serving{}, nil
	}
	db, _, err := openPostgresConn(o.PostgresURL)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("connecting to the database: %w", redact(err))
	}
	// The schema as the URL selects it, existing or not (as RestorePostgres).
	schema := `coalesce(current_schema(), replace(btrim(split_part(current_setting('search_path'), ',', 1), ' "'), '$user', current_user))`
	s, err := holdServing(ctx, conn, schema, "pg_try_advisory_lock", command, "stop it first")
	if err != nil {
		conn.Close()
		db.Close()
		return nil, err
	}
	s.pool = db
	return s, nil
}

// holdServing takes the serving lock on conn with lockFn, in the schema
// that schemaExpr names, and names this session after command.
func holdServing(ctx context.Context, conn *sql.Conn, schemaExpr, lockFn, command, advice string) (*Serving, error) {
	var scope, schema string
	var dbOID int64
	if err := conn.QueryRowContext(ctx, `SELECT current_database() || '.' || `+schemaExpr+`, `+schemaExpr+`,
		(SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&scope, &schema, &dbOID); err != nil {
		return nil, fmt.Errorf("marking the database: %w", redact(err))
	}
	host, _ := os.Hostname()
	name := fmt.Sprintf("hearth %s pid %d on %s", command, os.Getpid(), host)
	if _, err := conn.ExecContext(ctx, "SELECT set_config('application_name', $1, false)", name); err != nil {
		return nil, fmt.Errorf("marking the database: %w", redact(err))
	}
	key := lockKey(scope + ":" + servingLock)
	var won bool
	if err := conn.QueryRowContext(ctx, "SELECT "+lockFn+"($1)", key).Scan(&won); err != nil {
		return nil, fmt.Errorf("marking the database: %w", redact(err))
	}
	if !won {
		holder, err := servingHolder(ctx, conn, dbOID, key)
		if err != nil {
			return nil, err
		}
		return nil, &HeldError{Holder: holder, What: "this database (schema " + schema + ")", Advice: advice}
	}
	unlock := strings.Replace(lockFn, "_try", "", 1)
	unlock = strings.Replace(unlock, "_lock", "_unlock", 1)
	return &Serving{conn: conn, unlock: fmt.Sprintf("SELECT %s(%d)", unlock, key)}, nil
}

// servingHolder names a session other than conn's that holds the serving
// lock key: "a hearth serve, pid 123 on host-a," from its application_name.
func servingHolder(ctx context.Context, conn *sql.Conn, dbOID, key int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	hi, lo := uint32(uint64(key)>>32), uint32(uint64(key))
	var app sql.NullString
	err := conn.QueryRowContext(ctx, `SELECT a.application_name FROM pg_locks l
		JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.database = $1
		  AND l.classid = $2 AND l.objid = $3 AND l.objsubid = 1 AND l.pid <> pg_backend_pid()
		ORDER BY a.backend_start LIMIT 1`, dbOID, hi, lo).Scan(&app)
	if errors.Is(err, sql.ErrNoRows) {
		return "another hearth process (gone since)", nil
	}
	if err != nil {
		return "", fmt.Errorf("finding who holds the database: %w", redact(err))
	}
	rest, ok := strings.CutPrefix(app.String, "hearth ")
	command, where, ok2 := strings.Cut(rest, " pid ")
	if !ok || !ok2 {
		return "another hearth process (" + app.String + ")", nil
	}
	return fmt.Sprintf("a hearth %s, pid %s,", command, where), nil
}

// Release gives the mark up. It is safe on nil and more than once.
func (s *Serving) Release() {
	if s == nil || s.conn == nil {
		return
	}
	// Closing the session releases the lock; a pooled connection is reset
	// first, so that it goes back to the pool as any other.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.conn.ExecContext(ctx, s.unlock)                                           //nolint:errcheck // see above
	s.conn.ExecContext(ctx, "SELECT set_config('application_name', '', false)") //nolint:errcheck // see above
	s.conn.Close()
	s.conn = nil
	if s.pool != nil {
		s.pool.Close()
	}
}
