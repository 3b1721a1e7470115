package host

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// streamRow is a stream as stored (migration 20261205000002_host_streams).
type streamRow struct {
	bun.BaseModel `bun:"table:host_streams"`

	Owner          string     `bun:"owner,pk"`
	Key            string     `bun:"key,pk"`
	WalletID       string     `bun:"wallet_id,notnull"`
	Types          string     `bun:"types,notnull"` // space-separated
	URL            string     `bun:"url,notnull"`
	Secret         string     `bun:"secret,notnull"`
	Cursor         int64      `bun:"cursor,notnull"`
	Active         bool       `bun:"active,notnull"`
	DisabledReason *string    `bun:"disabled_reason"`
	HeadID         *int64     `bun:"head_id"`
	HeadAttempts   int        `bun:"head_attempts,notnull"`
	HeadSince      *time.Time `bun:"head_since"`
	NextAt         *time.Time `bun:"next_at"`
	FailingSince   *time.Time `bun:"failing_since"`
	TestID         *int64     `bun:"test_id"`
	TestBody       *string    `bun:"test_body"`
	CreatedAt      time.Time  `bun:"created_at,notnull"`
}

// types are the event types the stream takes.
func (r *streamRow) types() []string { return strings.Fields(r.Types) }

// streamAttemptRow is one attempt of a stream.
type streamAttemptRow struct {
	bun.BaseModel `bun:"table:host_stream_attempts"`

	Owner      string    `bun:"owner,pk"`
	Key        string    `bun:"key,pk"`
	EventID    int64     `bun:"event_id,pk"`
	Attempt    int       `bun:"attempt,pk"`
	StatusCode *int      `bun:"status_code"`
	Error      *string   `bun:"error"`
	DurationMS int64     `bun:"duration_ms,notnull"`
	At         time.Time `bun:"at,notnull"`
}

// eventHead is where a stream opened in tx starts: after every event
// written before. SQLite's next event id less one, read in tx (its one
// writer commits in order); PostgreSQL's outbox head, up to which every
// event is committed (an event with a later id that commits afterwards is
// delivered).
func (a *API) eventHead(ctx context.Context, tx bun.IDB) (int64, error) {
	if a.db.Dialect == store.Postgres && a.outboxHead != nil {
		return a.outboxHead(), nil
	}
	query := "SELECT " + a.db.EventID() + " - 1"
	if a.db.Dialect == store.Postgres {
		query = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq"
	}
	var h int64
	if err := tx.NewRaw(query).Scan(ctx, &h); err != nil {
		return 0, fmt.Errorf("reading the outbox's head: %w", err)
	}
	return h, nil
}

// streamStore reads and writes the streams.
type streamStore struct{ db *store.DB }

// active returns the active streams.
func (s streamStore) active(ctx context.Context) ([]streamRow, error) {
	var rows []streamRow
	if err := s.db.R.NewSelect().Model(&rows).Where("active = ?", true).Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the streams: %w", err)
	}
	return rows, nil
}

// progress is what a worker did since its last save: the events it is
// done with (its cursor) and the attempts that succeeded.
type progress struct {
	owner, key string
	cursor     int64
	attempts   []streamAttemptRow
	// recovered: a success came after failures (failing_since, the head's
	// retry state to clear).
	recovered bool
}

// save writes the workers' progress in one transaction: each cursor
// moves forward only (a slower save never takes one back), and the
// attempts are logged.
func (s streamStore) save(ctx context.Context, ps []progress) error {
	var attempts []streamAttemptRow
	for _, p := range ps {
		attempts = append(attempts, p.attempts...)
	}
	return s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, p := range ps {
			q := tx.NewUpdate().Model((*streamRow)(nil)).Set("cursor = ?", p.cursor).
				Where("owner = ?", p.owner).Where("key = ?", p.key).Where("cursor < ?", p.cursor)
			if p.recovered {
				q = tx.NewUpdate().Model((*streamRow)(nil)).Set("cursor = CASE WHEN cursor < ? THEN ? ELSE cursor END", p.cursor, p.cursor).
					Set("failing_since = NULL").Set("head_id = NULL").Set("head_attempts = 0").Set("head_since = NULL").
					Set("next_at = NULL").Where("owner = ?", p.owner).Where("key = ?", p.key)
			}
			if _, err := q.Exec(ctx); err != nil {
				return fmt.Errorf("saving a stream's cursor: %w", err)
			}
		}
		if len(attempts) == 0 {
			return nil
		}
		if _, err := tx.NewInsert().Model(&attempts).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("logging a stream's attempts: %w", err)
		}
		return nil
	})
}

// failed records a failed attempt of the head event of stream r, with
// the worker's progress p before it: the head's retry state (next at
// next), or, when given up, the cursor past it; failing since at, and
// disabled with reason when it has failed since before disableBefore.
// It reports whether the stream is still active.
func (s streamStore) failed(ctx context.Context, p progress, head *streamHead, a streamAttemptRow, givenUp bool,
	disableBefore time.Time, reason string) (bool, error) {
	active := true
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		p.attempts = append(p.attempts, a)
		if _, err := tx.NewInsert().Model(&p.attempts).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("logging a stream's attempts: %w", err)
		}
		q := tx.NewUpdate().Model((*streamRow)(nil)).Where("owner = ?", p.owner).Where("key = ?", p.key).
			Set("failing_since = COALESCE(failing_since, ?)", a.At)
		if givenUp {
			q = q.Set("cursor = ?", max(p.cursor, head.id)).Set("head_id = NULL").Set("head_attempts = 0").
				Set("head_since = NULL").Set("next_at = NULL")
		} else {
			q = q.Set("cursor = ?", p.cursor).Set("head_id = ?", head.id).Set("head_attempts = ?", head.attempts).
				Set("head_since = ?", head.since).Set("next_at = ?", head.next)
		}
		if _, err := q.Exec(ctx); err != nil {
			return fmt.Errorf("recording a stream's failure: %w", err)
		}
		res, err := tx.NewUpdate().Model((*streamRow)(nil)).Set("active = ?", false).Set("disabled_reason = ?", reason).
			Where("owner = ?", p.owner).Where("key = ?", p.key).Where("active = ?", true).
			Where("failing_since <= ?", disableBefore).Exec(ctx)
		if err != nil {
			return fmt.Errorf("disabling a stream: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			active = false
		}
		return nil
	})
	return active, err
}

// tested logs a test's attempt and forgets the test, unless another
// replaced it meanwhile.
func (s streamStore) tested(ctx context.Context, a streamAttemptRow) error {
	return s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&a).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("logging a stream's test: %w", err)
		}
		_, err := tx.NewUpdate().Model((*streamRow)(nil)).Set("test_id = NULL").Set("test_body = NULL").
			Where("owner = ?", a.Owner).Where("key = ?", a.Key).Where("test_id = ?", a.EventID).Exec(ctx)
		return err
	})
}

// prune deletes the attempts made before before.
func (s streamStore) prune(ctx context.Context, before time.Time) error {
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*streamAttemptRow)(nil)).Where("at < ?", before).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("pruning the streams' attempts: %w", err)
	}
	return nil
}
