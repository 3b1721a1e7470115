package host

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/outbox"
)

// Event is one event of the outbox as a plugin reads it: its id (the
// order of events), type, wallet, time and record. Its JSON is what
// webhooks send and the event stream shows.
type Event = outbox.Event

// EventFilter selects the events a consumer reads; the host filters them
// at the source, so a consumer never reads what it cannot use.
type EventFilter struct {
	// Types keeps the events of these types; none keeps every type.
	Types []string
	// Tagged keeps, of the invoices' events, only those of invoices a
	// plugin tagged (ledger.Tag): what a zap consumer can use, since zaps
	// are paid to a Lightning Address. TagPlugin keeps those of one
	// plugin's tags alone.
	Tagged    bool
	TagPlugin string
}

// Events is a built-in's durable cursor over the events of every wallet,
// which the host gives a built-in granted events:all while it leads
// (Builtin.Lead): what the built-in has consumed is not read again after
// a restart, and nothing written while it was away is missed.
type Events struct {
	box *outbox.Outbox
	cur *outbox.Cursor
}

// Consumer is one consume loop (Events.Consume).
type Consumer struct {
	// Name names the loop in its log lines ("nostr: answering zaps").
	Name   string
	Filter EventFilter
	// Batch is how many events are read at a time.
	Batch int
	// Handle does the consumer's work for a batch, in one transaction of
	// its own: once it succeeds the cursor moves past the batch. On an
	// error the cursor stays, and the same events come again a second
	// later, so Handle must be idempotent (a record per event, written
	// once).
	Handle func(ctx context.Context, evs []Event) error
	// After, when set, runs after each batch handled (a sender's wake-up).
	After func()
	// Idle, when set, is asked before each read: true when nothing would
	// use the events now (no webhook exists), and then the cursor moves to
	// the head without reading them, and the loop waits Poll. The head is
	// fixed before Idle looks, so a subscriber created meanwhile misses
	// nothing written after it.
	Idle func(ctx context.Context) (bool, error)
	Poll time.Duration
	// Every, when set, is the shortest time between two reads once the
	// consumer has caught up (else the outbox's, 50 ms): a consumer whose
	// events may wait a little reads less often at low rates.
	Every time.Duration
	Log   *slog.Logger
}

// Consume runs c until ctx ends. The built-in's consumer runs while it
// does: a built-in that never calls it (its feature is off) is reported
// off, not behind (outbox.Lags).
func (e *Events) Consume(ctx context.Context, c Consumer) {
	if c.Log == nil {
		c.Log = slog.Default()
	}
	filter := outbox.Filter{Types: c.Filter.Types, Tagged: c.Filter.Tagged, TagPlugin: c.Filter.TagPlugin}
	e.cur.Every = c.Every
	e.cur.SetRunning(true)
	defer e.cur.SetRunning(false)
	for ctx.Err() == nil {
		if c.Idle != nil {
			if idle, err := e.skipIdle(ctx, c.Idle); err != nil || idle {
				if err != nil && ctx.Err() == nil {
					c.Log.WarnContext(ctx, c.Name+": looking for subscribers", "err", err)
				}
				sleep(ctx, c.Poll)
				continue
			}
		}
		evs, err := e.cur.Next(ctx, filter, c.Batch)
		if err == nil && len(evs) > 0 {
			err = c.Handle(ctx, evs)
		}
		if err != nil {
			if ctx.Err() == nil {
				c.Log.WarnContext(ctx, c.Name, "err", err)
				sleep(ctx, time.Second) // the cursor has not moved: the same events come again
			}
			continue
		}
		if len(evs) > 0 {
			if err := e.cur.Done(ctx, evs[len(evs)-1].ID); err != nil && ctx.Err() == nil {
				c.Log.WarnContext(ctx, c.Name+": saving the cursor", "err", err)
			}
			if c.After != nil {
				c.After()
			}
		}
	}
}

// skipIdle moves the cursor to the head, without reading a record, when
// idle says nothing would use the events.
func (e *Events) skipIdle(ctx context.Context, idle func(context.Context) (bool, error)) (bool, error) {
	head, _ := e.box.Head()
	yes, err := idle(ctx)
	if err != nil || !yes {
		return false, err
	}
	return true, e.cur.Skip(ctx, head)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
