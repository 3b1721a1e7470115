// Package outbox reads the transactional outbox: the events table that
// triggers fill in the same transaction as each change they report
// (migration 20261123000031_events). An event is written exactly when its
// change commits, so no event is lost between a commit and its delivery,
// and none tells of a change that was rolled back.
//
// Consumers read after a position of their own: a durable Cursor (a
// plugin's delivery), or the Last-Event-ID of a stream client (Hub).
// Events are kept for a retention window (Prune), then deleted, delivered
// or not.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
)

// Event is one event of the outbox, as consumers get it.
type Event struct {
	// ID grows with every event: a consumer resumes after the last it saw.
	ID        int64     `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"created_at"`
	WalletID  string    `json:"wallet_id"`
	// SubjectID is the id of the invoice or payment.
	SubjectID string `json:"-"`
	// Data is the record as the API shows it (*ledger.Invoice or
	// *ledger.Payment), as it was when the event was written.
	Data any `json:"data"`
}

// Legacy returns e as the in-memory event that plugins' ABI encodes.
func (e Event) Legacy() event.Event {
	return event.Event{Type: e.Type, WalletID: e.WalletID, ID: e.SubjectID, At: e.CreatedAt, Data: e.Data}
}

// row is a row of the events table.
type row struct {
	bun.BaseModel `bun:"table:events"`
	ID            int64     `bun:"id,pk"`
	Type          string    `bun:"type"`
	WalletID      string    `bun:"wallet_id"`
	SubjectID     string    `bun:"subject_id"`
	Data          *string   `bun:"data"` // a copy of the record, when it may change later
	CreatedAt     time.Time `bun:"created_at"`
}

// Config tunes the outbox.
type Config struct {
	// Retention is how long an event is kept. Default 7 days.
	Retention time.Duration
	// Poll is how often the outbox looks for events that no wake-up
	// announced (another replica's, on PostgreSQL). Default 250ms.
	Poll time.Duration
	// Wake, when set, is the in-process bus whose events announce that
	// the outbox has new rows (the ledger publishes after each commit).
	Wake *event.Bus
	Log  *slog.Logger
}

// Outbox reads the events table. Run keeps its head current.
type Outbox struct {
	db  *store.DB
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	head    int64         // every event up to head is committed and readable
	changed chan struct{} // closed when head moves
	kick    chan struct{}
	hz      *horizon // PostgreSQL only
}

// New returns the outbox of db with its head read.
func New(ctx context.Context, db *store.DB, cfg Config) (*Outbox, error) {
	if cfg.Retention <= 0 {
		cfg.Retention = 7 * 24 * time.Hour
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	o := &Outbox{db: db, cfg: cfg, log: cfg.Log, changed: make(chan struct{}), kick: make(chan struct{}, 1)}
	if db.Dialect == store.Postgres {
		o.hz = &horizon{}
		h, err := o.hz.settle(ctx, db)
		if err != nil {
			return nil, err
		}
		o.setHead(h)
		return o, nil
	}
	if _, err := o.advance(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

// Kick tells the outbox that events may have been written.
func (o *Outbox) Kick() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// Head returns the id up to which every event is readable, and a channel
// closed when it moves.
func (o *Outbox) Head() (int64, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.head, o.changed
}

func (o *Outbox) setHead(h int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if h > o.head {
		o.head = h
		close(o.changed)
		o.changed = make(chan struct{})
	}
}

// Filter selects events. The zero Filter selects all.
type Filter struct {
	WalletID string   // "" for every wallet
	Types    []string // nil for every type
}

func (f Filter) match(e *row) bool {
	if f.WalletID != "" && e.WalletID != f.WalletID {
		return false
	}
	if f.Types == nil {
		return true
	}
	for _, t := range f.Types {
		if t == e.Type {
			return true
		}
	}
	return false
}

// Read returns up to limit events of f after id after and up to the head,
// oldest first, and the id it read up to (the last event's, or the head's
// when fewer than limit events matched).
func (o *Outbox) Read(ctx context.Context, after int64, f Filter, limit int) ([]Event, int64, error) {
	head, _ := o.Head()
	if after >= head {
		return nil, after, nil
	}
	var rows []row
	q := o.db.R.NewSelect().Model(&rows).Where("id > ?", after).Where("id <= ?", head).OrderExpr("id").Limit(limit)
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	if len(f.Types) > 0 {
		q = q.Where("type IN (?)", bun.In(f.Types))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, after, fmt.Errorf("reading events: %w", err)
	}
	recs, err := o.records(ctx, rows)
	if err != nil {
		return nil, after, err
	}
	out := make([]Event, 0, len(rows))
	for i := range rows {
		e, err := decode(&rows[i], recs)
		if err != nil {
			return nil, after, err
		}
		out = append(out, e)
	}
	if len(rows) == limit {
		return out, rows[len(rows)-1].ID, nil
	}
	return out, head, nil
}

// Run keeps the head current until ctx ends: at once when Kick or the
// Wake bus says so (then, on PostgreSQL, it tells the other replicas with
// NOTIFY), when another replica notifies, and every Poll in any case; and
// it prunes what is older than the retention.
func (o *Outbox) Run(ctx context.Context) error {
	var remote chan struct{}
	if o.db.Dialect == store.Postgres {
		remote = make(chan struct{}, 1)
		w := o.db.Watch(Topic, func() {
			select {
			case remote <- struct{}{}:
			default:
			}
		})
		defer w.Close()
	}
	if o.cfg.Wake != nil {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := o.cfg.Wake.Subscribe(wctx, 1024)
		go func() {
			for range ch {
				o.Kick()
			}
		}()
	}
	poll := time.NewTicker(o.cfg.Poll)
	defer poll.Stop()
	prune := time.NewTicker(pruneEvery(o.cfg.Retention))
	defer prune.Stop()
	o.pruneLogged(ctx)
	var soon <-chan time.Time // set while PostgreSQL's horizon waits for transactions to end
	var notified time.Time
	toNotify := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-o.kick:
			toNotify = o.db.Dialect == store.Postgres
		case <-remote:
		case <-poll.C:
		case <-soon:
		case <-prune.C:
			o.pruneLogged(ctx)
			continue
		}
		pending, err := o.advance(ctx)
		if err != nil && ctx.Err() == nil {
			o.log.WarnContext(ctx, "reading the outbox head", "err", err)
		}
		// The other replicas hear of this one's events once per
		// notifyEvery at most, however many payments commit.
		if toNotify && time.Since(notified) >= notifyEvery {
			o.notify(ctx)
			notified, toNotify = time.Now(), false
		}
		soon = nil
		switch {
		case pending:
			soon = time.After(horizonRetry)
		case toNotify:
			soon = time.After(notifyEvery - time.Since(notified))
		}
	}
}

// notifyEvery is the shortest time between two notifications of new events.
const notifyEvery = 20 * time.Millisecond

// Topic is the change notification of the events table on PostgreSQL.
const Topic store.WatchTopic = "hearth_events"

// notify tells the other replicas that events were written. It runs as a
// statement of its own, never inside a payment's transaction: a NOTIFY
// serialises the commits of the transactions that send it.
func (o *Outbox) notify(ctx context.Context) {
	_, err := o.db.W.ExecContext(ctx, "SELECT pg_notify(left(? || '_' || current_schema(), 63), '')", string(Topic))
	if err != nil && ctx.Err() == nil {
		o.log.WarnContext(ctx, "notifying new events", "err", err)
	}
}

// advance reads the head; pending reports that PostgreSQL has events that
// are not readable yet, because transactions that may precede them have
// not ended.
func (o *Outbox) advance(ctx context.Context) (pending bool, err error) {
	if o.hz == nil {
		var h int64
		if err := o.db.R.NewRaw("SELECT COALESCE(MAX(id), 0) FROM events").Scan(ctx, &h); err != nil {
			return false, fmt.Errorf("reading the last event id: %w", err)
		}
		o.setHead(h)
		return false, nil
	}
	h, pending, err := o.hz.advance(ctx, o.db)
	if err != nil {
		return false, err
	}
	o.setHead(h)
	return pending, nil
}

// ErrPruned is the error of a position older than the outbox keeps.
var ErrPruned = errors.New("events after this position are no longer kept")
