package store

import (
	"database/sql"
	"time"
)

// PoolStats is one connection pool of the database as its driver counts
// it, for the metrics.
type PoolStats struct {
	// Pool names it: "writer" and "readers" on SQLite (one connection
	// writes), "pool" on PostgreSQL.
	Pool        string
	Max         int
	InUse, Idle int
	// Waits counts the connections asked for when none was free, and
	// WaitTime is the time they waited, in all, since the pool opened.
	Waits    int64
	WaitTime time.Duration
}

// PoolStats returns the database's connection pools as they are now: on
// PostgreSQL pgxpool's (database/sql borrows its connections one
// statement at a time, so its own pool says little), on SQLite the
// writer's and the readers' database/sql pools.
func (db *DB) PoolStats() []PoolStats {
	if db.pool != nil {
		s := db.pool.Stat()
		return []PoolStats{{Pool: "pool", Max: int(s.MaxConns()), InUse: int(s.AcquiredConns()), Idle: int(s.IdleConns()),
			Waits: s.EmptyAcquireCount(), WaitTime: s.EmptyAcquireWaitTime()}}
	}
	return []PoolStats{sqlStats("writer", db.W.DB), sqlStats("readers", db.R.DB)}
}

// sqlStats is the pool of a database/sql handle.
func sqlStats(name string, d *sql.DB) PoolStats {
	s := d.Stats()
	return PoolStats{Pool: name, Max: s.MaxOpenConnections, InUse: s.InUse, Idle: s.Idle,
		Waits: s.WaitCount, WaitTime: s.WaitDuration}
}
