package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// Lock is a named lock held by one process among the replicas sharing a
// database. On PostgreSQL it is a session advisory lock held on a dedicated
// connection: the server releases it when that connection ends, so a
// replica that dies or loses the database gives it up by itself. SQLite is
// opened by one process only, which always holds it.
type Lock struct {
	conn     *sql.Conn // nil on SQLite
	key      int64
	lost     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	loseOnce sync.Once
	relOnce  sync.Once
}

// lockCheckEvery is how often a held PostgreSQL lock checks its connection.
const lockCheckEvery = 2 * time.Second

// TryLock takes the lock called name, or returns nil (and no error) when
// another session holds it.
func (db *DB) TryLock(ctx context.Context, name string) (*Lock, error) {
	l := &Lock{lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	if db.Dialect != Postgres {
		close(l.done)
		return l, nil
	}
	conn, err := db.W.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: connecting: %w", name, err)
	}
	// Advisory locks are per database: the schema is part of the key, so
	// instances in separate schemas of one database do not contend.
	var scope string
	if err := conn.QueryRowContext(ctx, "SELECT current_database() || '.' || current_schema()").Scan(&scope); err != nil {
		conn.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	l.key = lockKey(scope + ":" + name)
	var won bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", l.key).Scan(&won); err != nil {
		conn.Close()
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	if !won {
		conn.Close()
		return nil, nil
	}
	l.conn = conn
	go l.watch()
	return l, nil
}

// Lost is closed when the lock may have been lost (its connection failed);
// the holder must stop acting on it.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Release gives the lock up. It is safe to call more than once.
func (l *Lock) Release() {
	l.relOnce.Do(func() {
		close(l.stop)
		<-l.done
		if l.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			l.conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", l.key) //nolint:errcheck // closing the session releases it anyway
			l.conn.Close()
		}
	})
}

// watch pings the lock's connection until Release, and reports a failure
// through Lost.
func (l *Lock) watch() {
	defer close(l.done)
	t := time.NewTicker(lockCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), lockCheckEvery)
			err := l.conn.PingContext(ctx)
			cancel()
			if err != nil {
				l.loseOnce.Do(func() { close(l.lost) })
				return
			}
		}
	}
}

// lockKey turns a lock name into PostgreSQL's 64-bit advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("hearth:" + name))
	return int64(h.Sum64())
}
