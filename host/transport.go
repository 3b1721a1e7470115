package host

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// Transport delivers a built-in's sends that are no HTTP request (an event
// published on a Nostr relay, say), from the built-in's own lead, where its
// connections live. Its sends are queued like any other (Caller.Queue with
// Send.Via set), in the transaction of the change they report, and get the
// sender's attempts, backoff with jitter, give-up time, per-dest order,
// metrics and status; only the delivery is the transport's.
type Transport struct {
	// Via names the transport: the sends queued with this Via are its.
	Via string
	// Deliver makes one attempt at a send: nil when the destination took
	// it. An error wrapping ErrNotReady made no attempt (no connection to
	// the destination yet): the send is tried again after Poll, and the
	// attempt is not counted.
	Deliver func(ctx context.Context, url string, body []byte) error
	// Parallel bounds the deliveries in flight; default 16.
	Parallel int
	// Poll is how often the queue is read when nothing woke the loop;
	// FirstRetry and MaxBackoff shape the backoff. Default the sender's.
	Poll, FirstRetry, MaxBackoff time.Duration
	// Grace is how long a delivery in flight when the lead ends may go on
	// to be answered and recorded (not sent again by the next leader).
	// Default 2s.
	Grace time.Duration
	// Attempted, when set, hears the send as each attempt left it (state
	// SendPending for one to be tried again), once it is recorded.
	Attempted func(ctx context.Context, st *SendStatus)
}

// Errors a Transport's Deliver may wrap: ErrNotReady, a delivery that
// could not be tried now; ErrGiveUp, one that will never succeed (given
// up at once, as an HTTP request answered 4xx).
var (
	ErrNotReady = errors.New("the transport is not ready")
	ErrGiveUp   = errors.New("the send cannot be delivered")
)

func (t *Transport) fill(c SenderConfig) {
	if t.Parallel <= 0 {
		t.Parallel = 16
	}
	t.Poll = orDefault(t.Poll, c.Poll)
	t.FirstRetry = orDefault(t.FirstRetry, c.FirstRetry)
	t.MaxBackoff = orDefault(t.MaxBackoff, c.MaxBackoff)
	t.Grace = orDefault(t.Grace, 2*time.Second)
}

// Queue hands req to the durable sender through w, the transaction of the
// change it reports, so that the send exists exactly when the change does;
// call KickSends once w has committed. A send with Via is a built-in's, for
// its transport of that name, and has no pending limit (the built-in's
// own flow bounds it); any other is an HTTP request under the grant, as
// Send.
func (c *Caller) Queue(ctx context.Context, w bun.IDB, req Send) (*SendStatus, error) {
	if req.Via == "" {
		if err := c.allowSend(ctx, req.URL); err != nil {
			return nil, err
		}
		return c.api.sender.Queue(ctx, w, c.p.Name, req)
	}
	if err := c.allow(ctx, need{what: "send"}); err != nil {
		return nil, err
	}
	if !c.p.Builtin {
		return nil, c.api.refuse(ctx, c.p, "send", "only a built-in has transports")
	}
	return c.api.sender.Queue(ctx, w, c.p.Name, req)
}

// KickSends wakes the delivery of the plugin's sends after a Queue
// committed: the HTTP sender, and the plugin's transports on this replica.
func (c *Caller) KickSends() {
	poke(c.api.sender.wake)
	c.api.sender.kickOwner(c.p.Name)
}

// SendStatuses reads the plugin's sends ids (those pruned, a week after
// they were done, are missing from the map).
func (c *Caller) SendStatuses(ctx context.Context, ids []string) (map[string]*SendStatus, error) {
	if err := c.allow(ctx, need{what: "send_status"}); err != nil {
		return nil, err
	}
	rows, err := c.api.sender.store.byIDs(ctx, c.p.Name, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*SendStatus, len(rows))
	for i := range rows {
		out[rows[i].ID] = statusOf(&rows[i], false)
	}
	return out, nil
}

// Deliver runs the built-in's transport t until ctx ends: call it from the
// built-in's lead, where its connections are.
func (c *Caller) Deliver(ctx context.Context, t Transport) error {
	if err := c.allow(ctx, need{what: "deliver"}); err != nil {
		return err
	}
	if !c.p.Builtin {
		return c.api.refuse(ctx, c.p, "deliver", "only a built-in has transports")
	}
	if t.Via == "" || t.Deliver == nil {
		return callErrorf("invalid", "deliver: a transport has a via and a deliver function")
	}
	s := c.api.sender
	t.fill(s.cfg)
	owner := c.p.Name
	wake := s.addWake(owner, t.Via)
	defer s.dropWake(owner, t.Via, wake)
	s.loop(ctx, queue{parallel: t.Parallel, poll: t.Poll, wake: wake,
		due: func(ctx context.Context, now time.Time, n int) ([]sendRow, error) {
			return s.store.due(ctx, owner, t.Via, now, n)
		},
		attempt: func(ctx context.Context, row *sendRow) { s.deliver(ctx, &t, row) }})
	return nil
}

// deliver makes one attempt at row through t and records it.
func (s *Sender) deliver(ctx context.Context, t *Transport, row *sendRow) {
	// Cut short, a delivery is not recorded and the next leader makes it
	// again; t.Grace lets one in flight finish when the lead ends.
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(t.Grace, cancel) })
	defer stop()
	err := t.Deliver(dctx, row.URL, row.Body)
	if dctx.Err() != nil {
		return
	}
	now := time.Now().UTC()
	o := sendOutcome{state: SendPending, at: now}
	switch {
	case err == nil:
		o.state = SendDelivered
	case errors.Is(err, ErrNotReady):
		o.uncounted, o.next, o.err = true, now.Add(t.Poll), errText(err.Error())
	case errors.Is(err, ErrGiveUp):
		o.state, o.err = SendGivenUp, errText(err.Error())
	default:
		o.next, o.err = now.Add(backoff(t.FirstRetry, t.MaxBackoff, row.Attempts+1)), errText(err.Error())
	}
	s.settle(dctx, row, &o)
	if t.Attempted != nil {
		after := *row
		after.State, after.NextAt, after.LastError = o.state, o.next, o.err
		if !o.uncounted {
			after.Attempts++
		}
		if o.state != SendPending {
			after.DoneAt = &o.at
		}
		t.Attempted(dctx, statusOf(&after, false))
	}
}

// wakes are the transports' loops on this replica, by owner and via.
type wakes struct {
	mu sync.Mutex
	m  map[[2]string]chan struct{}
}

func (s *Sender) addWake(owner, via string) chan struct{} {
	c := make(chan struct{}, 1)
	s.wakes.mu.Lock()
	defer s.wakes.mu.Unlock()
	if s.wakes.m == nil {
		s.wakes.m = map[[2]string]chan struct{}{}
	}
	s.wakes.m[[2]string{owner, via}] = c
	return c
}

func (s *Sender) dropWake(owner, via string, c chan struct{}) {
	s.wakes.mu.Lock()
	defer s.wakes.mu.Unlock()
	if s.wakes.m[[2]string{owner, via}] == c {
		delete(s.wakes.m, [2]string{owner, via})
	}
}

// kickOwner wakes owner's transports on this replica.
func (s *Sender) kickOwner(owner string) {
	s.wakes.mu.Lock()
	defer s.wakes.mu.Unlock()
	for k, c := range s.wakes.m {
		if k[0] == owner {
			poke(c)
		}
	}
}
