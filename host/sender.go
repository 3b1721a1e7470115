package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// SenderConfig tunes the durable sender; zero fields take the defaults.
type SenderConfig struct {
	// FirstRetry is the wait after a first failed attempt, doubled after
	// each next one up to MaxBackoff, plus up to 20 % jitter. Defaults 5s
	// and 1h.
	FirstRetry time.Duration
	MaxBackoff time.Duration
	// Parallel bounds the requests in flight. Default 16.
	Parallel int
	// Poll is how often the queue is read when nothing woke the sender
	// (a send another replica queued). Default 1s.
	Poll time.Duration
	// Keep is how long a send done (delivered or given up) is kept for
	// its status. Default 7 days.
	Keep time.Duration
	// StreamParallel bounds the event streams' requests in flight, all
	// streams together (each stream has one at most). Default
	// DefaultStreamParallel.
	StreamParallel int
	// Paying is the ledger's time spent paying, summed over payments
	// (ledger.Service.PayingTime): the event streams give way to payments
	// while they queue (streambudget.go). Nil never paces them.
	Paying func() time.Duration
}

// DefaultStreamParallel is the most requests the event streams have in
// flight by default: enough to keep up with a server paying flat out on
// two cores, few enough that their clients' idle connections are reused.
const DefaultStreamParallel = 8

func (c *SenderConfig) fill() {
	c.FirstRetry = orDefault(c.FirstRetry, 5*time.Second)
	c.MaxBackoff = orDefault(c.MaxBackoff, time.Hour)
	c.Poll = orDefault(c.Poll, time.Second)
	c.Keep = orDefault(c.Keep, 7*24*time.Hour)
	if c.Parallel <= 0 {
		c.Parallel = 16
	}
	if c.StreamParallel <= 0 {
		c.StreamParallel = DefaultStreamParallel
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Sender is the host's durable sender: a request handed to it is queued
// in the database (in the transaction of the change it reports, when the
// caller has one), then delivered at least once, across crashes and
// restarts, by the replica that leads "sender": tried until it is
// answered 2xx, with backoff and jitter between attempts, until its
// give-up time. A 4xx other than 408 and 429 is an answer too: given up
// at once. Sends that name the same destination go one at a time, in the
// order they were queued.
type Sender struct {
	store   sendStore
	out     *Outbound
	cfg     SenderConfig
	metrics *metrics.Sends
	log     *slog.Logger
	wake    chan struct{}
	// wakes are the transports' loops on this replica (transport.go).
	wakes wakes
	// streams are the event streams (stream.go), delivered while the
	// sender leads; policies their owners' StreamPolicy, by owner.
	streams    streamStore
	streamWake chan struct{}
	runner     atomic.Pointer[streamRunner] // while the streams run
	policies   sync.Map
	// allowed says whether owner may still reach host: the grant is asked
	// again before each attempt (set by the registry).
	allowed func(owner, host string) bool
}

// kick wakes the sender: something was queued, or a stream changed.
func (s *Sender) kick() {
	poke(s.wake)
	poke(s.streamWake)
}

// poke wakes whoever waits on c (a channel of one), unless it is woken
// already.
func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Run delivers the queue and the event streams until ctx ends, on one
// replica at a time.
func (s *Sender) Run(ctx context.Context, box *outbox.Outbox) {
	box.Lead(ctx, "sender", func(ctx context.Context) {
		var wg sync.WaitGroup
		wg.Go(func() { s.runStreams(ctx, box) })
		s.run(ctx)
		wg.Wait()
	})
}

func (s *Sender) run(ctx context.Context) {
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	s.prune(ctx)
	s.loop(ctx, queue{parallel: s.cfg.Parallel, poll: s.cfg.Poll, wake: s.wake, tick: prune.C,
		due: func(ctx context.Context, now time.Time, n int) ([]sendRow, error) {
			return s.store.due(ctx, "", "", now, n)
		},
		attempt: s.attempt, onTick: s.prune})
}

// queue is one delivery loop's part of the sends: the HTTP requests (run),
// or one owner's sends through one of its transports (Caller.Deliver).
type queue struct {
	parallel int
	poll     time.Duration
	wake     chan struct{}
	due      func(ctx context.Context, now time.Time, n int) ([]sendRow, error)
	attempt  func(ctx context.Context, row *sendRow)
	// tick, when set, runs onTick now and then.
	tick   <-chan time.Time
	onTick func(ctx context.Context)
}

// loop delivers q's sends until ctx ends: parallel at most in flight, a
// send with a dest only while none before it to that dest is.
func (s *Sender) loop(ctx context.Context, q queue) {
	busy := map[string]bool{} // ids in flight, and owner+dest of ordered ones
	finished := make(chan []string, q.parallel)
	poll := time.NewTicker(q.poll)
	defer poll.Stop()
	inFlight := 0
	defer func() {
		for range inFlight {
			<-finished
		}
	}()
	for {
		if free := q.parallel - inFlight; free > 0 {
			rows, err := q.due(ctx, time.Now().UTC(), free+len(busy))
			if err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "sender: reading the queue", "err", err)
			}
			for i := range rows {
				row := rows[i]
				keys := []string{row.ID}
				if row.Dest != "" {
					keys = append(keys, row.Owner+"\x00"+row.Dest)
				}
				if busy[keys[0]] || (len(keys) > 1 && busy[keys[1]]) || inFlight >= q.parallel {
					continue
				}
				for _, k := range keys {
					busy[k] = true
				}
				inFlight++
				go func() {
					q.attempt(ctx, &row)
					finished <- keys
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case keys := <-finished:
			inFlight--
			for _, k := range keys {
				delete(busy, k)
			}
		case <-q.wake:
		case <-poll.C:
		case <-q.tick:
			q.onTick(ctx)
		}
	}
}

func (s *Sender) prune(ctx context.Context) {
	if err := s.store.prune(ctx, time.Now().UTC().Add(-s.cfg.Keep)); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "sender: pruning", "err", err)
	}
}

// sendOutcome is what an attempt came to.
type sendOutcome struct {
	state  string
	next   time.Time
	status *int
	err    *string
	at     time.Time
	// uncounted: no attempt was made (a transport not ready).
	uncounted bool
}

// attempt sends row once and records what came of it.
func (s *Sender) attempt(ctx context.Context, row *sendRow) {
	var headers map[string]string
	_ = json.Unmarshal([]byte(row.Headers), &headers) // written by Queue
	allowed := func(host string) bool { return s.allowed == nil || s.allowed(row.Owner, host) }
	resp, err := s.out.Do(ctx, allowed, OutboundRequest{Method: row.Method, URL: row.URL, Headers: headers, Body: row.Body,
		NoRedirects: true})
	if ctx.Err() != nil {
		return // shutting down, or the lead moved: the next leader sends it again
	}
	now := time.Now().UTC()
	o := sendOutcome{state: SendPending, at: now, next: now.Add(s.backoff(row.Attempts + 1))}
	switch {
	case err != nil:
		o.err = errText(err.Error())
	case resp.Status >= 200 && resp.Status < 300:
		o.state = SendDelivered
	default:
		o.err = errText(fmt.Sprintf("HTTP %d", resp.Status))
		if resp.Status < 500 && resp.Status != http.StatusRequestTimeout && resp.Status != http.StatusTooManyRequests {
			o.state = SendGivenUp // the receiver refused it: trying again would not change that
		}
	}
	if resp != nil {
		o.status = &resp.Status
	}
	s.settle(ctx, row, &o)
}

// settle gives up o past row's give-up time, counts it in the metrics and
// records it.
func (s *Sender) settle(ctx context.Context, row *sendRow, o *sendOutcome) {
	if o.state == SendPending && o.next.After(row.GiveUpAt) {
		o.state = SendGivenUp
	}
	outcome := map[string]int{SendDelivered: metrics.SendDelivered, SendPending: metrics.SendRetried, SendGivenUp: metrics.SendGivenUp}[o.state]
	s.metrics.Attempted(row.Kind, outcome, o.at.Sub(row.CreatedAt))
	if err := s.store.record(ctx, row, *o); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "sender: recording an attempt", "send", row.ID, "err", err)
	}
	if o.state == SendGivenUp {
		s.log.WarnContext(ctx, "sender: gave up a send", "kind", row.Kind, "send", row.ID, "attempts", row.Attempts+1, "err", deref(o.err))
	}
}

// backoff is the wait after the n-th failed attempt: FirstRetry doubled
// for each earlier failure, capped at MaxBackoff, plus up to 20 % jitter.
func (s *Sender) backoff(n int) time.Duration { return backoff(s.cfg.FirstRetry, s.cfg.MaxBackoff, n) }

// backoff is the wait after the n-th failed attempt: first doubled for
// each earlier failure, capped at most, plus up to 20 % jitter.
func backoff(first, most time.Duration, n int) time.Duration {
	d := first
	for i := 1; i < n && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	return d + rand.N(d/5+1)
}

// maxSendError bounds the error text kept for an attempt.
const maxSendError = 300

func errText(s string) *string {
	if len(s) > maxSendError {
		s = s[:maxSendError] + "…"
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
