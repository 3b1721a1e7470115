package store

import (
	"context"
	"sync/atomic"
)

// LockBackendPID returns the PostgreSQL backend holding l, so a test can
// end that session as a crash would.
func LockBackendPID(ctx context.Context, l *Lock) (int, error) {
	l.db.lockMu.Lock()
	defer l.db.lockMu.Unlock()
	var pid int
	err := l.sess.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
	return pid, err
}

// LockPoolConns is how many of the pool's connections are lent out now.
func LockPoolConns(db *DB) int32 { return db.pool.Stat().AcquiredConns() }

// Groups is how many groups the SQLite group commit has run.
func Groups(db *DB) int64 { return db.group.groups.Load() }

// Prepares is how many times a connection has prepared the Hot query h.
func Prepares(h *Hot) int64 {
	n, _ := hotTexts.Load(h.sqlite)
	return n.(*atomic.Int64).Load()
}

// GroupPrepares is how many times connections have prepared the group
// commit's SAVEPOINT and RELEASE.
func GroupPrepares() (savepoint, release int64) {
	count := func(q string) int64 {
		if n, ok := hotTexts.Load(q); ok && plainTexts[q] {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}
	return count("SAVEPOINT hearth_tx"), count("RELEASE hearth_tx")
}
