package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// cursorRow is a consumer's durable position.
type cursorRow struct {
	bun.BaseModel `bun:"table:event_cursors"`
	Name          string    `bun:"name,pk"`
	LastID        int64     `bun:"last_id"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// Cursor is a consumer's position in the outbox, kept in the database: a
// consumer that stops (or dies) resumes after the last position it saved,
// so it gets every event at least once. The position is saved once per
// Config.SaveEvery at most, and once per Config.SkipSaveEvery while the
// consumer only moves past events it does not want: after a crash the
// consumer may see the events of that last stretch again. It is not safe
// for concurrent use; Lead keeps one consumer of a name running among the
// replicas.
type Cursor struct {
	o     *Outbox
	name  string
	last  int64     // what the consumer has dealt with
	saved int64     // what the database holds
	at    time.Time // when it was saved
	read  time.Time // when the outbox was last read
	dealt bool      // the consumer dealt with an event since the save
	// Every, when set, is this consumer's shortest time between two
	// reads, in place of Config.ReadEvery: a consumer whose events may
	// wait (zap receipts) reads less often at low rates, where each read
	// finds an event or two at most.
	Every time.Duration
	// pos is last, for Lags to read from another goroutine.
	pos atomic.Int64
	// off is set while the consumer does not run (SetRunning).
	off atomic.Bool
}

// Cursor returns the saved position of consumer name; a new consumer
// starts at the head (it gets the events written from now on).
func (o *Outbox) Cursor(ctx context.Context, name string) (*Cursor, error) {
	head, _ := o.Head()
	return o.CursorFrom(ctx, name, head)
}

// CursorFrom returns the saved position of consumer name; a new consumer
// starts at start (0: it gets every event kept, from the first). ctx is
// the consumer's: Lags reports the cursor until it ends.
func (o *Outbox) CursorFrom(ctx context.Context, name string, start int64) (*Cursor, error) {
	_, err := o.db.Write(ctx, func(ctx context.Context, w bun.IDB) (res sql.Result, err error) {
		return w.NewInsert().Model(&cursorRow{Name: name, LastID: start, UpdatedAt: time.Now().UTC()}).
			On("CONFLICT (name) DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("creating the cursor of %s: %w", name, err)
	}
	var r cursorRow
	if err := o.db.W.NewSelect().Model(&r).Where("name = ?", name).Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the cursor of %s: %w", name, err)
	}
	c := &Cursor{o: o, name: name, last: r.LastID, saved: r.LastID, at: time.Now()}
	c.pos.Store(c.last)
	o.track(ctx, c)
	return c, nil
}

// SetRunning says whether the consumer runs: a cursor runs from its
// creation until told otherwise. One held by a feature that is off (a
// built-in with nothing to do, a plugin that can be given no event) reads
// nothing, and Lags reports it Off rather than behind.
func (c *Cursor) SetRunning(running bool) { c.off.Store(!running) }

// Last returns the position: the consumer has dealt with every event up to it.
func (c *Cursor) Last() int64 { return c.last }

// Next waits until events of f follow the position, and returns up to
// limit of them. Events that f leaves out move the position past them.
// A position that moved is saved while Next waits, at most once per
// SaveEvery: under load the head moves forty times a second, and each save
// is a commit of its own. A consumer that has caught up reads again once
// the head moves and ReadEvery has passed since its last read: durable
// consumers (webhooks, zap receipts, plugins) need no fresher events, and
// under load each read would find a few.
func (c *Cursor) Next(ctx context.Context, f Filter, limit int) ([]Event, error) {
	for {
		_, changed := c.o.Head()
		c.read = time.Now()
		evs, upTo, err := c.o.Read(ctx, c.last, f, limit)
		if err != nil {
			return nil, err
		}
		if len(evs) > 0 {
			// The position moves past what f left out before them.
			c.move(evs[0].ID - 1)
			return evs, nil
		}
		c.move(upTo)
		if err := c.wait(ctx, changed); err != nil {
			return nil, err
		}
	}
}

// wait waits for changed, then for pause. A position that moved is saved
// meanwhile: at once if the last save is saveEvery old, else once it is.
func (c *Cursor) wait(ctx context.Context, changed <-chan struct{}) error {
	var due <-chan time.Time
	if c.last != c.saved {
		t := time.NewTimer(max(0, c.saveEvery()-time.Since(c.at)))
		defer t.Stop()
		due = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
			return c.pause(ctx)
		case <-due:
			if err := c.Save(ctx); err != nil {
				return err
			}
			due = nil
		}
	}
}

// pause waits until ReadEvery (or Every) has passed since the last read.
func (c *Cursor) pause(ctx context.Context) error {
	every := c.o.cfg.ReadEvery
	if c.Every > 0 {
		every = c.Every
	}
	gap := time.NewTimer(max(0, every-time.Since(c.read)))
	defer gap.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-gap.C:
		return nil
	}
}

// Done moves the position past event id; the consumer has dealt with it.
// The position is saved when Next waits, or every SaveEvery meanwhile.
func (c *Cursor) Done(ctx context.Context, id int64) error {
	c.move(id)
	c.dealt = true
	return c.saveIfDue(ctx)
}

// Skip moves the position past id without the consumer having dealt with
// an event: it wants none of those up to id (a plugin bound to no wallet,
// webhooks while none is active). Such a position is saved once per
// SkipSaveEvery.
func (c *Cursor) Skip(ctx context.Context, id int64) error {
	c.move(id)
	return c.saveIfDue(ctx)
}

// move moves the position to id if it is further.
func (c *Cursor) move(id int64) {
	if id > c.last {
		c.last = id
		c.pos.Store(id)
	}
}

// saveEvery is how often the position is saved now: SaveEvery if the
// consumer dealt with an event since the last save, else SkipSaveEvery.
func (c *Cursor) saveEvery() time.Duration {
	if c.dealt {
		return c.o.cfg.SaveEvery
	}
	return c.o.cfg.SkipSaveEvery
}

// saveIfDue saves a position that moved once saveEvery has passed.
func (c *Cursor) saveIfDue(ctx context.Context) error {
	if c.last != c.saved && time.Since(c.at) >= c.saveEvery() {
		return c.Save(ctx)
	}
	return nil
}

// Save writes the position to the database, if it moved.
func (c *Cursor) Save(ctx context.Context) error {
	if c.last == c.saved {
		return nil
	}
	last := c.last
	_, err := c.o.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*cursorRow)(nil)).Set("last_id = ?", last).Set("updated_at = ?", time.Now().UTC()).
			Where("name = ?", c.name).Where("last_id < ?", last).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("saving the cursor of %s: %w", c.name, err)
	}
	c.saved, c.at, c.dealt = last, time.Now(), false
	return nil
}
