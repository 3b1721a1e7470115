package host

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// The streams' budget: delivering must not tax paying. While payments
// queue (the ledger is paying more of them at once, on average, than
// pressAbove), the streams' requests drop to streamFloor at once, so
// that the payments keep the processors and the deliveries fall behind;
// once the payments stop queueing, the pace rises by half every look and
// the deliveries catch up. What is read is payments waiting, not how busy
// the processors are: a machine that is busy at a rate it keeps up with
// (1,000 payments a second on two cores) has no payments queueing, and
// its deliveries keep up with it.
const (
	streamFloor = 100 // requests a second
	streamBurst = 100
	// pressAbove is the number of payments being paid at once, on
	// average over a look, from which they are taken to queue; below
	// pressBelow they no longer do, and the pace rises. Paying at 1,000/s
	// in a few milliseconds each is a handful at once; fifty clients
	// paying flat out are dozens.
	pressAbove = 16
	pressBelow = 8
	// streamCeiling is the pace above which it is lifted.
	streamCeiling = 20_000
	budgetEvery   = 100 * time.Millisecond
)

// streamBudget paces the streams' requests by the payments waiting.
type streamBudget struct {
	lim *rate.Limiter
	// paying is the ledger's time spent paying, summed over payments
	// (ledger.Service.PayingTime); nil never paces.
	paying func() time.Duration
}

func newStreamBudget(paying func() time.Duration) *streamBudget {
	return &streamBudget{lim: rate.NewLimiter(rate.Inf, streamBurst), paying: paying}
}

// wait waits for the next request's turn, or until ctx ends.
func (b *streamBudget) wait(ctx context.Context) error {
	return b.lim.Wait(ctx)
}

// run adjusts the pace every budgetEvery until ctx ends.
func (b *streamBudget) run(ctx context.Context) {
	if b.paying == nil {
		return
	}
	tick := time.NewTicker(budgetEvery)
	defer tick.Stop()
	last, lastAt := b.paying(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, at := b.paying(), time.Now()
		b.adjust(float64(now-last) / float64(at.Sub(lastAt)))
		last, lastAt = now, at
	}
}

// adjust sets the pace from the payments paid at once, on average, over
// the last look.
func (b *streamBudget) adjust(waiting float64) {
	limit := b.lim.Limit()
	switch {
	case waiting >= pressAbove:
		limit = streamFloor
	case waiting < pressBelow && limit != rate.Inf:
		if limit *= 1.5; limit > streamCeiling {
			limit = rate.Inf
		}
	default:
		return
	}
	b.lim.SetLimit(limit)
}
