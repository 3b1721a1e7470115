package host

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// The states of a queued send.
const (
	SendPending   = "pending"
	SendDelivered = "delivered"
	SendGivenUp   = "given_up"
)

// sendRow is one request the durable sender delivers: queued in the
// transaction of the change it reports, tried until it is answered 2xx
// or its give-up time passes. Its id grows with time (a UUIDv7), and the
// sends of one owner to one dest go in that order.
type sendRow struct {
	bun.BaseModel `bun:"table:host_sends"`

	ID         string     `bun:"id,pk"`
	Owner      string     `bun:"owner,notnull"`
	Kind       string     `bun:"kind,notnull"`
	Dest       string     `bun:"dest,notnull"`
	Via        string     `bun:"via,notnull"`
	Key        *string    `bun:"idem_key"`
	Method     string     `bun:"method,notnull"`
	URL        string     `bun:"url,notnull"`
	Headers    string     `bun:"headers,notnull"`
	Body       []byte     `bun:"body,notnull"`
	State      string     `bun:"state,notnull"`
	Attempts   int        `bun:"attempts,notnull"`
	NextAt     time.Time  `bun:"next_at,notnull"`
	GiveUpAt   time.Time  `bun:"give_up_at,notnull"`
	LastStatus *int       `bun:"last_status"`
	LastError  *string    `bun:"last_error"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	DoneAt     *time.Time `bun:"done_at"`
}

// sendStore reads and writes the queue.
type sendStore struct{ db *store.DB }

// insert queues row through w while owner has fewer than limit sends
// pending (no limit when limit is 0); when owner has a send of the same
// key, it returns that one instead (dup true).
func (s sendStore) insert(ctx context.Context, w bun.IDB, row *sendRow, limit int) (got *sendRow, dup bool, err error) {
	row.ID = uuid.Must(uuid.NewV7()).String()
	// INSERT … SELECT: written only while the owner is under its limit,
	// and not over a send of the same key (the unique index).
	var under any = true
	if limit > 0 {
		under = w.NewRaw("(?) < ?", w.NewSelect().Model((*sendRow)(nil)).ColumnExpr("count(*)").
			Where("owner = ?", row.Owner).Where("state = ?", SendPending), limit)
	}
	res, err := w.NewRaw(`INSERT INTO host_sends (id, owner, kind, dest, via, idem_key, method, url, headers, body, state,
 attempts, next_at, give_up_at, created_at)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ?
ON CONFLICT DO NOTHING`, row.ID, row.Owner, row.Kind, row.Dest, row.Via, row.Key, row.Method, row.URL, row.Headers, row.Body,
		row.State, row.Attempts, row.NextAt, row.GiveUpAt, row.CreatedAt, under).Exec(ctx)
	return s.inserted(ctx, w, row, res, err)
}

// ErrSendLimit refuses a send past the owner's pending limit.
var ErrSendLimit = errors.New("too many sends pending")

// inserted reads what an insert of row came to: row, or the send that
// holds its key (another writer's, at the same moment), or the limit.
func (s sendStore) inserted(ctx context.Context, w bun.IDB, row *sendRow, res sql.Result, err error) (*sendRow, bool, error) {
	if err != nil {
		return nil, false, fmt.Errorf("queueing a send: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, false, fmt.Errorf("queueing a send: %w", err)
	} else if n == 1 {
		return row, false, nil
	}
	if row.Key != nil {
		if prev, err := s.byKey(ctx, w, row.Owner, *row.Key); err != nil || prev != nil {
			return prev, prev != nil, err
		}
	}
	return nil, false, ErrSendLimit
}

func (s sendStore) byKey(ctx context.Context, r bun.IDB, owner, key string) (*sendRow, error) {
	row := new(sendRow)
	err := r.NewSelect().Model(row).Where("owner = ?", owner).Where("idem_key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading a send: %w", err)
	}
	return row, nil
}

// get reads owner's send id; nil when there is none.
func (s sendStore) get(ctx context.Context, owner, id string) (*sendRow, error) {
	row := new(sendRow)
	err := s.db.R.NewSelect().Model(row).Where("owner = ?", owner).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading a send: %w", err)
	}
	return row, nil
}

// due reads up to n sends due at now: the HTTP requests when via is "",
// else owner's sends through its transport via; of those with a dest,
// only the first pending of its owner and dest (the rest wait behind it).
func (s sendStore) due(ctx context.Context, owner, via string, now time.Time, n int) ([]sendRow, error) {
	var rows []sendRow
	q := s.db.R.NewSelect().Model(&rows)
	if via != "" {
		q = q.Where("owner = ?", owner)
	}
	err := q.Where("via = ?", via).
		Where("state = ?", SendPending).Where("next_at <= ?", now).
		Where(`(dest = '' OR NOT EXISTS (SELECT 1 FROM host_sends o WHERE o.owner = send_row.owner AND o.dest = send_row.dest
 AND o.state = 'pending' AND o.id < send_row.id))`).
		OrderExpr("next_at ASC").Limit(n).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the sends due: %w", err)
	}
	return rows, nil
}

// record writes an attempt's outcome if the send is still as read (one
// writer wins when two replicas both tried it).
func (s sendStore) record(ctx context.Context, row *sendRow, o sendOutcome) error {
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		attempts := row.Attempts
		if !o.uncounted {
			attempts++
		}
		q := w.NewUpdate().Model((*sendRow)(nil)).
			Set("state = ?", o.state).Set("attempts = ?", attempts).Set("next_at = ?", o.next).
			Set("last_status = ?", o.status).Set("last_error = ?", o.err).
			Where("id = ?", row.ID).Where("state = ?", SendPending).Where("attempts = ?", row.Attempts)
		if o.state != SendPending {
			q = q.Set("done_at = ?", o.at)
		}
		return q.Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("recording a send's attempt: %w", err)
	}
	return nil
}

// byIDs reads owner's sends ids.
func (s sendStore) byIDs(ctx context.Context, owner string, ids []string) ([]sendRow, error) {
	var rows []sendRow
	if len(ids) == 0 {
		return nil, nil
	}
	err := s.db.R.NewSelect().Model(&rows).Where("owner = ?", owner).Where("id IN (?)", bun.In(ids)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading sends: %w", err)
	}
	return rows, nil
}

// prune deletes the sends done before before.
func (s sendStore) prune(ctx context.Context, before time.Time) error {
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*sendRow)(nil)).Where("state <> ?", SendPending).Where("done_at < ?", before).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("pruning sends: %w", err)
	}
	return nil
}

// deleteSends drops every send of owner, in tx (a plugin removed).
func deleteSends(ctx context.Context, tx bun.IDB, owner string) error {
	if _, err := tx.NewDelete().Model((*sendRow)(nil)).Where("owner = ?", owner).Exec(ctx); err != nil {
		return fmt.Errorf("deleting plugin sends: %w", err)
	}
	return nil
}
