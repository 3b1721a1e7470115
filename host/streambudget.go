package host

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/hearthwallet/hearth/lib/cpuload"
)

// The streams' budget: delivering must not tax paying. While the machine's
// processors are busy (a server paying flat out), the streams' requests
// are paced down, so that the payments keep the processor and the
// deliveries fall behind; once it has time to spare, the pace rises and
// they catch up. A stream is never paced below streamFloor, in bursts of
// streamBurst.
const (
	streamFloor = 100 // requests a second
	streamBurst = 100
	// busyAbove is the busy share above which the pace halves; below
	// idleBelow it grows by half, and above streamCeiling it is lifted.
	busyAbove     = 0.9
	idleBelow     = 0.75
	streamCeiling = 20_000
	budgetEvery   = 100 * time.Millisecond
)

// streamBudget paces the streams' requests by how busy the machine is.
type streamBudget struct {
	lim  *rate.Limiter
	sent atomic.Int64 // requests since the last look

	// read reads the machine's ticks (cpuload.Read; tests replace it).
	read func() (cpuload.Ticks, bool)
}

func newStreamBudget() *streamBudget {
	return &streamBudget{lim: rate.NewLimiter(rate.Inf, streamBurst), read: cpuload.Read}
}

// wait waits for the next request's turn, or until ctx ends.
func (b *streamBudget) wait(ctx context.Context) error {
	b.sent.Add(1)
	return b.lim.Wait(ctx)
}

// run adjusts the pace every budgetEvery until ctx ends; without
// /proc/stat the pace stays unlimited.
func (b *streamBudget) run(ctx context.Context) {
	last, ok := b.read()
	if !ok {
		return
	}
	tick := time.NewTicker(budgetEvery)
	defer tick.Stop()
	lastAt := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, ok := b.read()
		if !ok {
			continue
		}
		since := time.Since(lastAt)
		b.adjust(now.Since(last), float64(b.sent.Swap(0))/since.Seconds())
		last, lastAt = now, time.Now()
	}
}

// adjust sets the pace from the busy share of the last look and the
// requests a second made meanwhile.
func (b *streamBudget) adjust(busy, sentPerSecond float64) {
	limit := b.lim.Limit()
	switch {
	case busy >= busyAbove:
		if limit == rate.Inf {
			limit = rate.Limit(sentPerSecond)
		}
		limit = max(limit/2, streamFloor)
	case busy < idleBelow && limit != rate.Inf:
		if limit *= 1.5; limit > streamCeiling {
			limit = rate.Inf
		}
	default:
		return
	}
	b.lim.SetLimit(limit)
}
