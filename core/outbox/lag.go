package outbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Lag is how far a durable consumer running in this process is behind
// the head.
type Lag struct {
	// Name is the consumer's (its cursor's) name.
	Name string
	// Events counts the events after its position, up to the head.
	Events int64
	// Oldest is when the first of them was written; zero when Events is 0.
	Oldest time.Time
	// Off is set when the consumer does not run: the feature that owns
	// the cursor is off (Cursor.SetRunning), so it reads nothing and its
	// position tells no lag; Events and Oldest are then zero.
	Off bool
}

// track lists c among the cursors in use until ctx, its consumer's, ends.
func (o *Outbox) track(ctx context.Context, c *Cursor) {
	o.live.Store(c, struct{}{})
	context.AfterFunc(ctx, func() { o.live.Delete(c) })
}

// Follow lists a consumer that keeps its position itself (not a Cursor:
// the host's event streams, whose tail reads for them all) among the
// consumers in use, at pos, until ctx ends.
func (o *Outbox) Follow(ctx context.Context, name string, pos func() int64) {
	f := &follower{name: name, pos: pos}
	o.followers.Store(f, struct{}{})
	context.AfterFunc(ctx, func() { o.followers.Delete(f) })
}

// follower is a consumer listed by Follow.
type follower struct {
	name string
	pos  func() int64
}

// Lags returns the head and the lag of each consumer whose cursor is in
// use in this process (with several replicas, each consumer's lag is
// told by the replica that leads it), by name; a consumer none of whose
// cursors runs is Off, with no lag. Each running consumer behind the
// head costs one read of the event after its position.
func (o *Outbox) Lags(ctx context.Context) (int64, []Lag, error) {
	head, _ := o.Head()
	pos := map[string]int64{} // of the running cursors
	off := map[string]bool{}  // names with no running cursor
	o.live.Range(func(k, _ any) bool {
		c := k.(*Cursor)
		if c.off.Load() {
			if _, ok := pos[c.name]; !ok {
				off[c.name] = true
			}
			return true
		}
		delete(off, c.name)
		if p, ok := pos[c.name]; !ok || c.pos.Load() < p {
			pos[c.name] = c.pos.Load()
		}
		return true
	})
	o.followers.Range(func(k, _ any) bool {
		f := k.(*follower)
		delete(off, f.name)
		if p, ok := pos[f.name]; !ok || f.pos() < p {
			pos[f.name] = f.pos()
		}
		return true
	})
	lags := make([]Lag, 0, len(pos)+len(off))
	for name := range off {
		lags = append(lags, Lag{Name: name, Off: true})
	}
	for name, p := range pos {
		l := Lag{Name: name, Events: max(0, head-p)}
		if l.Events > 0 {
			evs, _, err := o.Read(ctx, p, Filter{}, 1)
			if err != nil {
				return head, nil, fmt.Errorf("reading the next event of %s: %w", name, err)
			}
			if len(evs) > 0 {
				l.Oldest = evs[0].CreatedAt
			}
		}
		lags = append(lags, l)
	}
	slices.SortFunc(lags, func(a, b Lag) int { return strings.Compare(a.Name, b.Name) })
	return head, lags, nil
}
