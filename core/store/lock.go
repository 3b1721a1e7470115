package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lock is a named lock held by one process among the replicas sharing a
// database. On PostgreSQL it is a session advisory lock. All the locks of a
// process share one connection of their own, outside the pool: a process
// leads a dozen background jobs, and a pooled connection per lock took most
// of the pool from the requests. The server releases the locks when that
// connection ends, so a replica that dies or loses the database gives them
// up by itself. SQLite is opened by one process only, which always holds it.
type Lock struct {
	db      *DB
	sess    *lockSession // nil on SQLite
	key     int64
	lost    <-chan struct{}
	relOnce sync.Once
}

// lockSession is the connection that holds a process's advisory locks.
type lockSession struct {
	conn   *pgx.Conn
	scope  string         // database and schema: part of every key
	held   map[int64]bool // the keys this process holds through it
	lost   chan struct{}  // closed when the connection failed or closed
	closed bool
}

// lockState is the DB's part of Lock.
type lockState struct {
	lockMu   sync.Mutex
	lockSess *lockSession
}

// lockCheckEvery is how often the locks' connection is checked.
const lockCheckEvery = 2 * time.Second

// never is a channel that is never closed: SQLite's lock is never lost.
var never = make(chan struct{})

// TryLock takes the lock called name, or returns nil (and no error) when
// another session, or another holder in this process, holds it.
func (db *DB) TryLock(ctx context.Context, name string) (*Lock, error) {
	if db.Dialect != Postgres {
		return &Lock{db: db, lost: never}, nil
	}
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	s, err := db.lockSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	key := lockKey(s.scope + ":" + name)
	if s.held[key] {
		return nil, nil // advisory locks are reentrant within a session
	}
	var won bool
	if err := s.conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&won); err != nil {
		db.loseLocks(s)
		return nil, fmt.Errorf("lock %s: %w", name, redact(err))
	}
	if !won {
		return nil, nil
	}
	s.held[key] = true
	return &Lock{db: db, sess: s, key: key, lost: s.lost}, nil
}

// lockSession returns the live session, connecting one if there is none.
// The caller holds lockMu.
func (db *DB) lockSession(ctx context.Context) (*lockSession, error) {
	if s := db.lockSess; s != nil {
		return s, nil
	}
	conn, err := pgx.ConnectConfig(ctx, db.pgConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", redact(err))
	}
	// Advisory locks are per database: the schema is part of the key, so
	// instances in separate schemas of one database do not contend.
	var scope string
	if err := conn.QueryRow(ctx, "SELECT current_database() || '.' || current_schema()").Scan(&scope); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, redact(err)
	}
	s := &lockSession{conn: conn, scope: scope, held: map[int64]bool{}, lost: make(chan struct{})}
	db.lockSess = s
	go db.watchLocks(s)
	return s, nil
}

// watchLocks pings the session's connection until it fails or closes; a
// failure tells every holder, through Lost, that its lock may be gone.
func (db *DB) watchLocks(s *lockSession) {
	t := time.NewTicker(lockCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-s.lost:
			return
		case <-t.C:
		}
		db.lockMu.Lock()
		if !s.closed {
			ctx, cancel := context.WithTimeout(context.Background(), lockCheckEvery)
			if err := s.conn.Ping(ctx); err != nil {
				db.loseLocks(s)
			}
			cancel()
		}
		db.lockMu.Unlock()
	}
}

// loseLocks ends session s: its connection is closed (so the server frees
// whatever it held) and its holders learn through Lost. The caller holds
// lockMu.
func (db *DB) loseLocks(s *lockSession) {
	if s.closed {
		return
	}
	s.closed = true
	close(s.lost)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	s.conn.Close(ctx) //nolint:errcheck // closing the session is the point
	cancel()
	if db.lockSess == s {
		db.lockSess = nil
	}
}

// closeLocks ends the locks' session when the database closes.
func (db *DB) closeLocks() {
	db.lockMu.Lock()
	defer db.lockMu.Unlock()
	if db.lockSess != nil {
		db.loseLocks(db.lockSess)
	}
}

// Lost is closed when the lock may have been lost (its connection failed);
// the holder must stop acting on it.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Release gives the lock up. It is safe to call more than once.
func (l *Lock) Release() {
	if l.sess == nil {
		return
	}
	l.relOnce.Do(func() {
		l.db.lockMu.Lock()
		defer l.db.lockMu.Unlock()
		s := l.sess
		if s.closed {
			return // the server let it go with the connection
		}
		delete(s.held, l.key)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var released bool
		if err := s.conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", l.key).Scan(&released); err != nil || !released {
			// Unsure whether the server still holds it for us: end the
			// session, which frees it for certain.
			l.db.loseLocks(s)
		}
	})
}

// lockKey turns a lock name into PostgreSQL's 64-bit advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("hearth:" + name))
	return int64(h.Sum64())
}
