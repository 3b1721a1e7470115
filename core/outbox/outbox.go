// Package outbox reads the transactional outbox. Its events are the
// ledger's own records: an invoice or payment that turns Settled or Failed
// takes the next event id in the statement that changes it (migration
// 20261123000031_events), so an event exists exactly when its change
// committed, and none tells of a change that was rolled back (on
// PostgreSQL an internal payment's invoice is read through its payment,
// whose id stands for both: pair.go). Nothing is written twice and nothing
// needs pruning: the outbox grows by one index entry per record, and every
// position stays resumable.
//
// Consumers read after a position of their own: a durable Cursor (a
// plugin's delivery), or the Last-Event-ID of a stream client (Hub).
package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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

// Config tunes the outbox.
type Config struct {
	// Poll is how often the outbox looks for events that no wake-up
	// announced (another replica's, on PostgreSQL). Default 250ms.
	Poll time.Duration
	// SaveEvery is how often a consumer's cursor saves its position at
	// most (see Cursor). Default 1s.
	SaveEvery time.Duration
	// SkipSaveEvery is how often it does when the consumer dealt with no
	// event since the last save, only moved past events its filter left
	// out: each save is a commit, and a consumer that is sent back a
	// little after a crash reads nothing it wants there. Default 60
	// SaveEvery.
	SkipSaveEvery time.Duration
	// ReadEvery is the shortest time between two reads of a consumer's
	// cursor that waited for the head in between (see Cursor.Next).
	// Default 50ms.
	ReadEvery time.Duration
	// Wake, when set, is the in-process bus whose events announce that
	// the outbox has new rows (the ledger publishes after each commit).
	Wake *event.Bus
	// Alone, when set, reports that no other replica shares the database
	// (ledger.Service.Alone): Run then notifies none of new events. A
	// replica that joins meanwhile hears of them at its next Poll until
	// this one sees it.
	Alone func() bool
	Log   *slog.Logger
}

// Outbox reads the events of the ledger's records. Run keeps its head current.
type Outbox struct {
	db  *store.DB
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	head    int64         // every event up to head is committed and readable
	changed chan struct{} // closed when head moves
	kick    chan struct{}
	hz      *horizon // PostgreSQL only

	queries, records atomic.Int64 // what Read asked of the database
	live             sync.Map     // the cursors in use in this process: *Cursor → struct{} (lag.go)
	followers        sync.Map     // the consumers that keep their own position: *follower → struct{} (lag.go)
}

// Stats says what the outbox's readers have asked of the database.
type Stats struct {
	Queries int64 // queries of records
	Records int64 // records they returned
}

// Stats returns what the outbox's readers have asked of the database
// since it was made.
func (o *Outbox) Stats() Stats {
	return Stats{Queries: o.queries.Load(), Records: o.records.Load()}
}

// counted counts one query of records that returned n.
func (o *Outbox) counted(n int) {
	o.queries.Add(1)
	o.records.Add(int64(n))
}

// New returns the outbox of db with its head read.
func New(ctx context.Context, db *store.DB, cfg Config) (*Outbox, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.SaveEvery <= 0 {
		cfg.SaveEvery = time.Second
	}
	if cfg.SkipSaveEvery <= 0 {
		cfg.SkipSaveEvery = 60 * cfg.SaveEvery
	}
	if cfg.ReadEvery <= 0 {
		cfg.ReadEvery = 50 * time.Millisecond
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
	Types    []string // nil for every type; empty (not nil) for none
	// Tagged keeps, of the invoices' events, those of invoices a plugin
	// tagged (ledger.Tag): a consumer that wants only those (Nostr's zaps,
	// made through a Lightning Address) reads none of the others, which
	// under load are most. TagPlugin, when set, keeps those of that
	// plugin's tags alone.
	Tagged    bool
	TagPlugin string
}

// tagged reports whether f keeps only the events of tagged invoices.
func (f Filter) tagged() bool { return f.Tagged || f.TagPlugin != "" }

// Nothing is the filter no event matches: a cursor's Next with it moves the
// position along the head without reading a record, for a consumer that
// can use no event now (a plugin bound to no wallet, say).
var Nothing = Filter{Types: []string{}}

// Run keeps the head current until ctx ends: at once when Kick or the
// Wake bus says so (then, on PostgreSQL, it tells the other replicas with
// NOTIFY), when another replica notifies, and every Poll in any case.
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
		o.cfg.Wake.OnPublish(wctx, o.Kick)
	}
	poll := time.NewTicker(o.cfg.Poll)
	defer poll.Stop()
	var soon <-chan time.Time // set while PostgreSQL's horizon waits for transactions to end
	var notified, advanced time.Time
	toNotify := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-o.kick:
			toNotify = o.db.Dialect == store.Postgres && (o.cfg.Alone == nil || !o.cfg.Alone())
		case <-remote:
		case <-poll.C:
		case <-soon:
		}
		// Readings of the head are advanceGap apart at least, whatever
		// asks for them: under load every commit kicks, and the commits
		// of that stretch are then found by one reading instead of one
		// each.
		if wait := advanceGap - time.Since(advanced); wait > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
		pending, err := o.advance(ctx)
		advanced = time.Now()
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

// advanceGap is the shortest time between two readings of the head: the
// most a new event waits for it, at most 40 readings a second however
// many payments commit. (10 ms, 100 readings, cost PostgreSQL's payments
// more than any reader of events notices.)
const advanceGap = 25 * time.Millisecond

// notifyEvery is the shortest time between two notifications of new events.
const notifyEvery = 20 * time.Millisecond

// Topic is the notification of new events on PostgreSQL.
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

// lastEventSQL is SQLite's head: the next event id less one, a Hot query
// since each commit under load moves it.
var lastEventSQL = store.NewHot("SELECT " + store.EventToken + " - ?")

// advance reads the head; pending reports that PostgreSQL has events that
// are not readable yet, because transactions that may precede them have
// not ended.
func (o *Outbox) advance(ctx context.Context) (pending bool, err error) {
	if o.hz == nil {
		// The next id less one: SQLite's one writer commits ids in order.
		var h int64
		if err := o.db.QueryRow(ctx, o.db.R, lastEventSQL, []any{&h}, 1); err != nil {
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
