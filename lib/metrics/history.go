package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The payment history: every historyStep, RunHistory samples the totals
// of hearth_payments_total (settled by ledger, and failed) into a ring
// that holds the last hour, from which Stats tells the payments of the
// last minute and of each of the last 60. The counters, and so the
// history, are this process's: each replica tells its own.

// historyStep is how often the history samples the counters (aligned to
// the wall clock, so that every minute begins with a sample), and
// historySlots how many samples it keeps: an hour back from a step ago.
const (
	historyStep  = 5 * time.Second
	historySlots = int(time.Hour/historyStep) + 2
)

// tally is the payment counters' totals at one moment.
type tally struct {
	settled [len(ledgerLabels)]int64
	failed  int64
}

// minus is the payments counted between b and t.
func (t tally) minus(b tally) tally {
	for i := range t.settled {
		t.settled[i] -= b.settled[i]
	}
	t.failed -= b.failed
	return t
}

// counts is t as Stats answers it.
func (t tally) counts() PaymentCounts {
	c := PaymentCounts{Failed: t.failed, ByLedger: make(map[string]int64, len(ledgerLabels))}
	for i, name := range ledgerLabels {
		c.Settled += t.settled[i]
		c.ByLedger[name] = t.settled[i]
	}
	return c
}

// tally reads the payment counters.
func (l *Ledger) tally() tally {
	var t tally
	for i := range ledgerLabels {
		t.settled[i] = counterValue(l.paySettled[i])
		t.failed += counterValue(l.payFailed[i])
	}
	return t
}

// counterValue is c's value, as a scrape would read it.
func counterValue(c prometheus.Counter) int64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return 0
	}
	return int64(m.GetCounter().GetValue())
}

// history is the ring of samples: slot k % historySlots holds the
// sample of step k (its Unix time divided by historyStep), when steps[i]
// says that it is k's.
type history struct {
	mu     sync.Mutex
	steps  [historySlots]int64
	tallys [historySlots]tally
}

func stepOf(t time.Time) int64 { return t.Unix() / int64(historyStep/time.Second) }

// record keeps t as the sample of now's step.
func (h *history) record(now time.Time, t tally) {
	k := stepOf(now)
	i := k % int64(historySlots)
	h.mu.Lock()
	h.steps[i], h.tallys[i] = k, t
	h.mu.Unlock()
}

// at is the totals at t: the sample of t's step, else of the latest
// step before it in the ring. None at all means none was taken by then,
// and the counters, which begin at zero when New makes them, were zero
// (RunHistory samples at once when it starts). h.mu is held.
func (h *history) at(t time.Time) tally {
	k := stepOf(t)
	for j := k; j > k-int64(historySlots) && j >= 0; j-- {
		if i := j % int64(historySlots); h.steps[i] == j {
			return h.tallys[i]
		}
	}
	return tally{}
}

// RunHistory samples the payment counters every historyStep until ctx
// ends: once at once, then at each multiple of historyStep on the wall
// clock. Nothing when m is nil.
func (m *Metrics) RunHistory(ctx context.Context) {
	if m == nil {
		return
	}
	m.history.record(time.Now(), m.ledger.tally())
	next := func() time.Duration {
		now := time.Now()
		return now.Truncate(historyStep).Add(historyStep).Sub(now)
	}
	timer := time.NewTimer(next())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-timer.C:
			m.history.record(now, m.ledger.tally())
		}
		timer.Reset(next())
	}
}

// payments is the payments of the last minute and of each of the 60
// minutes up to now (the last one in progress), oldest first, for the
// totals now.
func (h *history) payments(now time.Time, current tally) PaymentStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	ps := PaymentStats{LastMinute: current.minus(h.at(now.Add(-time.Minute))).counts(), Minutes: make([]MinuteCounts, 60)}
	start := now.Truncate(time.Minute).Add(-59 * time.Minute)
	begin := h.at(start)
	for i := range ps.Minutes {
		s := start.Add(time.Duration(i) * time.Minute)
		end := current
		if i < len(ps.Minutes)-1 {
			end = h.at(s.Add(time.Minute))
		}
		ps.Minutes[i] = MinuteCounts{Start: s.UTC(), PaymentCounts: end.minus(begin).counts()}
		begin = end
	}
	return ps
}
