package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// openScratch opens a SQLite database with a table t(id) to write in.
func openScratch(t *testing.T) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{SQLitePath: filepath.Join(t.TempDir(), "hearth.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.W.ExecContext(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return db
}

func insert(ctx context.Context, tx bun.Tx, id int) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO t (id) VALUES (?)", id)
	return err
}

func rows(t *testing.T, db *store.DB) map[int]bool {
	t.Helper()
	var ids []int
	if err := db.R.NewRaw("SELECT id FROM t").Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, id := range ids {
		got[id] = true
	}
	return got
}

// hold starts a transaction that keeps the writer until release is closed,
// so that the transactions asked for meanwhile queue up into one group.
func hold(t *testing.T, db *store.DB) (release func()) {
	t.Helper()
	held, ch := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.Tx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			close(held)
			<-ch
			return nil
		})
	}()
	<-held
	return func() {
		close(ch)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// queue starts fn's transaction and waits until it is blocked waiting for
// the writer (it cannot run while hold holds it), so that transactions
// queued one after the other are run in that order.
func queue(db *store.DB, ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) <-chan error {
	out := make(chan error, 1)
	go func() { out <- db.Tx(ctx, fn) }()
	time.Sleep(50 * time.Millisecond)
	return out
}

// TestGroupCommitIsolatesEachTransaction: transactions committed as one
// group still succeed, fail or panic alone: a failed or panicking one
// leaves no row, the others' rows are all there, and each caller gets its
// own answer.
func TestGroupCommitIsolatesEachTransaction(t *testing.T) {
	t.Parallel()
	db := openScratch(t)
	release := hold(t, db)
	groupsBefore := store.Groups(db)

	const n = 30
	errFail := errors.New("refused")
	var wg sync.WaitGroup
	var started atomic.Int32
	answers := make([]any, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					answers[i] = v
				}
			}()
			started.Add(1)
			answers[i] = db.Tx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
				if err := insert(ctx, tx, i); err != nil {
					return err
				}
				switch i % 3 {
				case 1:
					return errFail
				case 2:
					panic(fmt.Sprintf("panic %d", i))
				}
				return nil
			})
		}()
	}
	for started.Load() < n {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // until they all wait for the writer
	release()
	wg.Wait()

	got := rows(t, db)
	for i := range n {
		switch i % 3 {
		case 0:
			if answers[i] != nil || !got[i] {
				t.Errorf("tx %d: answer %v, row written %v; want nil and written", i, answers[i], got[i])
			}
		case 1:
			if answers[i] != errFail || got[i] {
				t.Errorf("tx %d: answer %v, row written %v; want %v and no row", i, answers[i], got[i], errFail)
			}
		case 2:
			if answers[i] != fmt.Sprintf("panic %d", i) || got[i] {
				t.Errorf("tx %d: answer %v, row written %v; want its panic and no row", i, answers[i], got[i])
			}
		}
	}
	// The blocking transaction's group, then the 30 in very few groups.
	if groups := store.Groups(db) - groupsBefore; groups > 5 {
		t.Errorf("%d transactions took %d groups: not grouped", n, groups)
	}
}

// TestGroupCommitLosesTheWholeGroupTogether: when SQLite rolls the whole
// transaction back (here a transaction does it itself, as SQLite does on a
// full disk or an I/O error), every transaction of the group is told so,
// even those that had succeeded, and those after it never run: nothing of
// the group is written and nobody is told otherwise.
func TestGroupCommitLosesTheWholeGroupTogether(t *testing.T) {
	t.Parallel()
	db := openScratch(t)
	ctx := context.Background()
	release := hold(t, db)
	before := queue(db, ctx, func(ctx context.Context, tx bun.Tx) error { return insert(ctx, tx, 1) })
	breaker := queue(db, ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := insert(ctx, tx, 2); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "ROLLBACK")
		return err
	})
	var ranAfter atomic.Bool
	after := queue(db, ctx, func(ctx context.Context, tx bun.Tx) error {
		ranAfter.Store(true)
		return insert(ctx, tx, 3)
	})
	release()
	for name, ch := range map[string]<-chan error{"before": before, "breaker": breaker, "after": after} {
		if err := <-ch; err == nil {
			t.Errorf("%s: no error, though its group was rolled back", name)
		}
	}
	if ranAfter.Load() {
		t.Error("a transaction after the group broke still ran")
	}
	if got := rows(t, db); len(got) != 0 {
		t.Errorf("rows %v written by a group that was rolled back", got)
	}
	// The writer goes on.
	if err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error { return insert(ctx, tx, 4) }); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, db); len(got) != 1 || !got[4] {
		t.Errorf("rows after the broken group = %v, want only 4", got)
	}
}

// TestGroupCommitAndCancellation: a transaction whose context ends while it
// waits for the writer returns the context's error and writes nothing; one
// whose context ends once it has begun runs to its end and commits, since
// interrupting it would make SQLite roll back its whole group.
func TestGroupCommitAndCancellation(t *testing.T) {
	t.Parallel()
	db := openScratch(t)
	release := hold(t, db)
	waiting, cancelWaiting := context.WithCancel(context.Background())
	var ranWaiting atomic.Bool
	gaveUp := queue(db, waiting, func(ctx context.Context, tx bun.Tx) error {
		ranWaiting.Store(true)
		return insert(ctx, tx, 1)
	})
	running, cancelRunning := context.WithCancel(context.Background())
	finished := queue(db, running, func(ctx context.Context, tx bun.Tx) error {
		cancelRunning()
		return insert(ctx, tx, 2)
	})
	cancelWaiting()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled while waiting: %v, want context.Canceled", err)
	}
	release()
	if err := <-finished; err != nil {
		t.Errorf("cancelled while running: %v, want its commit", err)
	}
	if ranWaiting.Load() {
		t.Error("a transaction cancelled while it waited ran")
	}
	if got := rows(t, db); len(got) != 1 || !got[2] {
		t.Errorf("rows = %v, want only 2", got)
	}
}

func TestWriteJoinsTheGroupCommit(t *testing.T) {
	db := openScratch(t)
	ctx := context.Background()
	before := store.Groups(db)
	res, err := db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewRaw("INSERT INTO t (id) VALUES (?)", 7).Exec(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Errorf("rows affected = %d, %v; want 1", n, err)
	}
	if got := store.Groups(db) - before; got != 1 {
		t.Errorf("the write ran in %d groups of the group commit, want 1", got)
	}
	if !rows(t, db)[7] {
		t.Error("row 7 not written")
	}
}
