package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// SettledRead is what ReadSettled's read is given: a read-only snapshot of
// the database, and a bound on the outbox's event ids (store.EventToken)
// below which the snapshot misses nothing.
type SettledRead func(ctx context.Context, tx bun.Tx, bound int64) error

// NoBound is the bound ReadSettled passes when it could not establish one
// in time: a transaction that may write events ran throughout its wait.
const NoBound int64 = -1

// settledWait is how long ReadSettled waits at most for the transactions
// that took event ids before it to end.
const settledWait = 10 * time.Second

// ReadSettled runs read in one read-only snapshot of db (REPEATABLE READ on
// PostgreSQL, a read transaction on SQLite) with a bound: every row whose
// event id is at most bound is in the snapshot, or was rolled back and
// never will be; an event id taken later is above it. The ledger's check
// (core/ledger/checkpoint.go) sums what it has not checkpointed yet from
// there.
//
// On SQLite the one writer commits its transactions in the order of their
// event ids (EventID), so the largest id the snapshot holds is the bound.
// On PostgreSQL ids come from a sequence and commit in any order: the
// bound is the sequence's last value L, read first (hearth_events_horizon,
// which also reads the next transaction id N to be given out after L), and
// the snapshot is taken only once no transaction below N that writes
// events (hearth_event_id names them) still runs; each transaction that
// took an id up to L took its transaction id before, so below N
// (core/outbox/horizon.go reasons the same way). Such a transaction that
// runs longer than settledWait leaves the bound at NoBound.
func (db *DB) ReadSettled(ctx context.Context, read SettledRead) error {
	if db.Dialect != Postgres {
		return db.ReadSnapshot(ctx, func(ctx context.Context, tx bun.Tx) error {
			var bound int64
			// The first read fixes the snapshot: the bound is the snapshot's own.
			if err := tx.QueryRowContext(ctx, sqliteLastEventID).Scan(&bound); err != nil {
				return fmt.Errorf("reading the last event id: %w", err)
			}
			return read(ctx, tx, bound)
		})
	}
	bound, err := settledBound(ctx, db.W)
	if err != nil {
		return err
	}
	return db.ReadSnapshot(ctx, func(ctx context.Context, tx bun.Tx) error { return read(ctx, tx, bound) })
}

// ReadSnapshot runs read in one read-only snapshot of db: a REPEATABLE
// READ transaction on PostgreSQL, a read transaction of SQLite's readers
// (whose snapshot is fixed by its first read).
func (db *DB) ReadSnapshot(ctx context.Context, read func(ctx context.Context, tx bun.Tx) error) error {
	var tx bun.Tx
	var err error
	if db.Dialect == Postgres {
		tx, err = db.W.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	} else {
		tx, err = db.R.BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("beginning a snapshot: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read only: nothing to keep
	if err := read(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// sqliteLastEventID is the largest event id on SQLite: EventID's, less one.
var sqliteLastEventID = "SELECT " + strings.Replace(sqliteEventID, "COALESCE(MAX(m), 0) + 1", "COALESCE(MAX(m), 0)", 1)

// settledBound reads PostgreSQL's sequence of event ids through q and
// waits until every transaction that may have taken one of them has
// ended; NoBound when one still runs after settledWait.
func settledBound(ctx context.Context, q bun.IDB) (int64, error) {
	var (
		last              int64
		text, writers     string
		markXID, afterMin sql.NullString
	)
	// p_after -1: the reading always takes its mark N.
	err := q.QueryRowContext(ctx, `SELECT snap, writers, last_id, mark_xid, after_xmin FROM hearth_events_horizon(-1, false)`).
		Scan(&text, &writers, &last, &markXID, &afterMin)
	if err != nil {
		return 0, fmt.Errorf("reading the events horizon: %w", err)
	}
	mark, err := strconv.ParseUint(markXID.String, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the events horizon's mark %q: %w", markXID.String, err)
	}
	if after, err := strconv.ParseUint(afterMin.String, 10, 64); err == nil && after >= mark {
		return last, nil // nothing below N ran once N was read
	}
	deadline := time.Now().Add(settledWait)
	for attempt := 0; time.Now().Before(deadline); attempt++ {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		// p_after at its largest: a reading that takes no mark. After a
		// few, the writers of events too, so that only they are waited for.
		askWriters := attempt >= 3
		err := q.QueryRowContext(ctx, `SELECT snap, writers FROM hearth_events_horizon(?, ?)`, int64(math.MaxInt64), askWriters).
			Scan(&text, &writers)
		if err != nil {
			return 0, fmt.Errorf("reading the events horizon: %w", err)
		}
		oldest, err := oldestRunning(text, writers, askWriters)
		if err != nil {
			return 0, err
		}
		if oldest >= mark {
			return last, nil
		}
	}
	return NoBound, nil
}

// oldestRunning is, from a reading of hearth_events_horizon, a transaction
// id below which every transaction has ended (the snapshot's xmin), or,
// with writers read, below which no writer of events runs.
func oldestRunning(snap, writers string, withWriters bool) (uint64, error) {
	xmin, xmaxText, ok := strings.Cut(snap, ":")
	xmaxText, _, ok2 := strings.Cut(xmaxText, ":")
	if !ok || !ok2 {
		return 0, fmt.Errorf("unexpected snapshot %q", snap)
	}
	oldest, err := strconv.ParseUint(xmin, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("snapshot %q: %w", snap, err)
	}
	if !withWriters {
		return oldest, nil
	}
	xmax, err := strconv.ParseUint(xmaxText, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("snapshot %q: %w", snap, err)
	}
	oldest = math.MaxUint64
	for _, f := range strings.Split(writers, ",") {
		if f == "" {
			continue
		}
		x, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("transaction id %q: %w", f, err)
		}
		// pg_stat_activity's ids carry no epoch: they take the snapshot's.
		oldest = min(oldest, uint64(int64(xmax)+int64(int32(uint32(x)-uint32(xmax)))))
	}
	return oldest, nil
}
