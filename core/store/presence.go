package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// Presence is one process's mark among the processes that share a
// database under one name: on PostgreSQL a shared session advisory lock
// held on a dedicated connection, which every process that joins holds at
// once, and which the server lets go when that connection ends, so a
// process that dies leaves by itself. Others says whether anyone else
// holds it now. SQLite is opened by one process only: it is always alone.
type Presence struct {
	conn    *sql.Conn // nil on SQLite
	key     int64
	dbOID   int64
	pid     int // the backend holding the mark
	relOnce sync.Once
}

// Join marks this process present under name.
func (db *DB) Join(ctx context.Context, name string) (*Presence, error) {
	p := &Presence{}
	if db.Dialect != Postgres {
		return p, nil
	}
	conn, err := db.W.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("presence %s: connecting: %w", name, err)
	}
	// The schema is part of the key, as for Lock: instances in separate
	// schemas of one database are not each other's.
	var scope string
	if err := conn.QueryRowContext(ctx, `SELECT current_database() || '.' || current_schema(),
		(SELECT oid FROM pg_database WHERE datname = current_database()), pg_backend_pid()`).Scan(&scope, &p.dbOID, &p.pid); err != nil {
		conn.Close()
		return nil, fmt.Errorf("presence %s: %w", name, err)
	}
	p.key = lockKey(scope + ":presence:" + name)
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock_shared($1)", p.key); err != nil {
		conn.Close()
		return nil, fmt.Errorf("presence %s: %w", name, err)
	}
	p.conn = conn
	return p, nil
}

// presenceHolders counts the sessions holding a presence's lock: a bigint
// advisory key shows in pg_locks as its high and low halves, objsubid 1.
const presenceHolders = `SELECT count(*) FROM pg_locks
	WHERE locktype = 'advisory' AND granted AND database = $1
	  AND classid = $2 AND objid = $3 AND objsubid = 1`

// Others reports whether another process holds the presence now. An
// error (this process's own connection lost, say) is to be read as yes.
func (p *Presence) Others(ctx context.Context) (bool, error) {
	if p.conn == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var n int
	hi, lo := uint32(uint64(p.key)>>32), uint32(uint64(p.key))
	if err := p.conn.QueryRowContext(ctx, presenceHolders, p.dbOID, hi, lo).Scan(&n); err != nil {
		return true, fmt.Errorf("counting the processes present: %w", err)
	}
	if n < 1 {
		return true, fmt.Errorf("this process's presence is gone")
	}
	return n > 1, nil
}

// PID is the PostgreSQL backend that holds the mark (0 on SQLite): the
// session an operator would see in pg_stat_activity.
func (p *Presence) PID() int { return p.pid }

// Leave gives the presence up. It is safe to call more than once.
func (p *Presence) Leave() {
	p.relOnce.Do(func() {
		if p.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			p.conn.ExecContext(ctx, "SELECT pg_advisory_unlock_shared($1)", p.key) //nolint:errcheck // closing the session releases it anyway
			p.conn.Close()
		}
	})
}
