package host

import (
	"context"
	"time"

	"golang.org/x/time/rate"

	"github.com/hearthwallet/hearth/lib/cpuload"
)

// The streams' budget: delivering must not tax paying. While payments
// queue for the processors (the ledger pays more of them at once, on
// average, than pressAbove, two looks in a row, while the processors are
// busier than busyAbove), the streams' requests drop to streamFloor at
// once, so that the payments keep the processors and the deliveries fall
// behind; once the payments stop queueing, or the processors have time
// to spare, the pace doubles every look and the deliveries catch up.
// Payments queueing tell saturation from a busy machine that keeps up
// (1,000 payments a second on two cores: 2–6 at once, the processors
// 55–80 % busy; flat out, 35–47 at once); two looks in a row, from a
// moment's stall (one look of 28 at once at 1,000/s on PostgreSQL, then
// 5); and the processors' share, from a queue that waits for the
// database's disk, which holding back the deliveries would not shorten.
const (
	streamFloor = 100 // requests a second
	streamBurst = 100
	// pressAbove is the number of payments paid at once, on average over
	// a look, from which they are taken to queue; below pressBelow they
	// are not, and the pace rises. Fifty clients paying flat out on two
	// cores are some forty at once.
	pressAbove = 16
	pressBelow = 8
	// pressLooks is how many looks in a row payments must queue.
	pressLooks = 2
	// busyAbove is the processors' busy share from which queueing
	// payments are taken to wait for them; below idleBelow the pace
	// rises.
	busyAbove = 0.7
	idleBelow = 0.5
	// streamCeiling is the pace above which it is lifted.
	streamCeiling = 20_000
	budgetEvery   = 100 * time.Millisecond
)

// streamBudget paces the streams' requests by the payments waiting, and
// the tail's readings of the outbox with them.
type streamBudget struct {
	lim *rate.Limiter
	// reads paces the events the tail reads for the streams: twice what
	// they may send while paced, so that the deliveries never wait for it
	// and the outbox is not read ahead of them while payments queue
	// (each reading is the database's work too); unlimited with them.
	reads *rate.Limiter
	// paying is the ledger's time spent paying, summed over payments
	// (ledger.Service.PayingTime); nil never paces.
	paying func() time.Duration
	// read reads the machine's ticks (cpuload.Read).
	read func() (cpuload.Ticks, bool)
	// pressed counts the looks in a row in which payments queued.
	pressed int
}

func newStreamBudget(paying func() time.Duration) *streamBudget {
	return &streamBudget{lim: rate.NewLimiter(rate.Inf, streamBurst), reads: rate.NewLimiter(rate.Inf, streamQueue),
		paying: paying, read: cpuload.Read}
}

// readWait waits until the tail may read n events (at most streamQueue),
// or until ctx ends.
func (b *streamBudget) readWait(ctx context.Context, n int) error {
	return b.reads.WaitN(ctx, min(n, streamQueue))
}

// paced says whether the streams are held back now.
func (b *streamBudget) paced() bool { return b.lim.Limit() != rate.Inf }

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
	lastTicks, _ := b.read()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, at := b.paying(), time.Now()
		ticks, ok := b.read()
		busy := 1.0 // without /proc/stat, payments queueing alone tell
		if ok {
			busy = ticks.Since(lastTicks)
		}
		b.adjust(float64(now-last)/float64(at.Sub(lastAt)), busy)
		last, lastAt, lastTicks = now, at, ticks
	}
}

// adjust sets the pace from the payments paid at once, on average, and
// the processors' busy share, over the last look.
func (b *streamBudget) adjust(waiting, busy float64) {
	if waiting >= pressAbove && busy >= busyAbove {
		b.pressed++
	} else {
		b.pressed = 0
	}
	limit := b.lim.Limit()
	switch {
	case b.pressed >= pressLooks:
		limit = streamFloor
	case (waiting < pressBelow || busy < idleBelow) && limit != rate.Inf:
		if limit *= 2; limit > streamCeiling {
			limit = rate.Inf
		}
	default:
		return
	}
	b.lim.SetLimit(limit)
	if limit == rate.Inf {
		b.reads.SetLimit(rate.Inf)
	} else {
		b.reads.SetLimit(2 * limit)
	}
}
