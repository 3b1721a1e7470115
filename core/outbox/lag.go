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
}

// track lists c among the cursors in use until ctx, its consumer's, ends.
func (o *Outbox) track(ctx context.Context, c *Cursor) {
	o.live.Store(c, struct{}{})
	context.AfterFunc(ctx, func() { o.live.Delete(c) })
}

// Lags returns the head and the lag of each consumer whose cursor is in
// use in this process (with several replicas, each consumer's lag is
// told by the replica that leads it), by name. Each consumer behind the
// head costs one read of the event after its position.
func (o *Outbox) Lags(ctx context.Context) (int64, []Lag, error) {
	head, _ := o.Head()
	pos := map[string]int64{}
	o.live.Range(func(k, _ any) bool {
		c := k.(*Cursor)
		if p, ok := pos[c.name]; !ok || c.pos.Load() < p {
			pos[c.name] = c.pos.Load()
		}
		return true
	})
	lags := make([]Lag, 0, len(pos))
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
