package store_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A process that finds the migration lock held says so and waits, for at
// most its bound, and migrates once the holder is done; the holder's work
// is not repeated.
func TestMigrateWaitsForTheLockHolder(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		other := storetest.Replica(t, db) // on SQLite, Migrate's connection is its own anyway
		held, release := make(chan struct{}), make(chan struct{})
		holder := make(chan error, 1)
		go func() {
			holder <- db.MigrateWith(ctx, store.MigrateOptions{Holding: func(context.Context) error {
				close(held)
				<-release
				return nil
			}})
		}()
		select {
		case <-held:
		case err := <-holder:
			t.Fatalf("the holder returned %v before holding the lock", err)
		}

		err := other.MigrateWith(ctx, store.MigrateOptions{Wait: 300 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "still held") {
			t.Fatalf("migrating while the lock is held, bounded wait: %v, want the lock still held", err)
		}

		logs := &logBuffer{changed: make(chan struct{}, 1)}
		waiter := make(chan error, 1)
		go func() {
			waiter <- other.MigrateWith(ctx, store.MigrateOptions{Wait: 2 * time.Minute, Log: slog.New(slog.NewTextHandler(logs, nil))})
		}()
		if err := logs.waitFor("another process is migrating the database", 30*time.Second); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-waiter:
			t.Fatalf("the waiter returned %v while the lock was held", err)
		default:
		}
		close(release)
		for name, ch := range map[string]chan error{"holder": holder, "waiter": waiter} {
			select {
			case err := <-ch:
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s did not return after the lock was released", name)
			}
		}
		expectEachMigrationOnce(t, db)
	})
}

// Replicas started together on an empty database all migrate, without
// error, and each migration is applied once.
func TestMigrateConcurrentlyOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	const replicas = 4
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hearth.db")
		migrateTogether(t, replicas, store.Options{SQLitePath: path})
	})
	t.Run("postgres", func(t *testing.T) {
		migrateTogether(t, replicas, store.Options{PostgresURL: storetest.EmptySchemaURL(t)})
	})
}

func migrateTogether(t *testing.T, n int, o store.Options) {
	ctx := context.Background()
	dbs := make([]*store.DB, n)
	for i := range dbs {
		db, err := store.Open(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	start := make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = db.Migrate(ctx)
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("replicas migrating together: %v", err)
	}
	expectEachMigrationOnce(t, dbs[0])
}

func expectEachMigrationOnce(t *testing.T, db *store.DB) {
	t.Helper()
	var rows, names int
	if err := db.W.QueryRowContext(context.Background(),
		"SELECT count(*), count(DISTINCT name) FROM hearth_migrations").Scan(&rows, &names); err != nil {
		t.Fatal(err)
	}
	if rows != names || rows == 0 {
		t.Fatalf("hearth_migrations has %d rows for %d migrations", rows, names)
	}
}

// logBuffer collects log output and lets a test wait for a line.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (b *logBuffer) waitFor(s string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		b.mu.Lock()
		found := strings.Contains(b.buf.String(), s)
		b.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-b.changed:
		case <-deadline:
			return errors.New("timed out waiting for the log line " + s)
		}
	}
}
