package nwc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/host"
)

// maxRelayMessage bounds what the plugin reads of one relay message.
const maxRelayMessage = 256 << 10

// subscription is the id of the plugin's subscription on each relay.
const subscription = "hearth-nwc"

// errRelayDown is a publication to a relay the plugin is not connected to.
var errRelayDown = fmt.Errorf("not connected to the relay: %w", host.ErrNotReady)

// pool holds a connection to each relay: the plugin's subscription to the
// requests addressed to its service key, and the channel its answers,
// notifications and info event go out on. A dropped connection is dialled
// again with backoff; the websocket is dialled by the host's guarded
// client (no private address unless allowed, after DNS).
type pool struct {
	p      *Plugin
	relays map[string]*relay
	// handling holds the request events being handled, so that the copy
	// another relay delivers meanwhile is not handled beside it.
	mu       sync.Mutex
	handling map[string]bool
	sem      chan struct{}
	// ring is the wallet keys listened for; running is set while this
	// replica serves the relays; syncMu orders the syncs.
	ring    keyring
	running atomic.Bool
	syncMu  sync.Mutex
}

func newPool(p *Plugin) *pool {
	pl := &pool{p: p, relays: map[string]*relay{}, handling: map[string]bool{}, sem: make(chan struct{}, 16)}
	for _, u := range p.cfg.allRelays() {
		pl.relays[u] = &relay{url: u, p: p, pool: pl, waiters: map[string][]chan error{}, eose: map[string][]chan struct{}{}}
	}
	return pl
}

// run reads the wallet keys, then keeps every relay connected and the
// subscriptions up to the connections until ctx ends.
func (pl *pool) run(ctx context.Context) {
	if err := pl.sync(ctx, false); err != nil && ctx.Err() == nil {
		pl.p.log.WarnContext(ctx, "nwc: reading the wallet keys", "err", err)
	}
	pl.running.Store(true)
	defer pl.running.Store(false)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pl.resync(ctx)
	}()
	for _, r := range pl.relays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.run(ctx)
		}()
	}
	wg.Wait()
}

// publish sends ev to every relay and waits for their OKs: nil when one
// took it at least.
func (pl *pool) publish(ctx context.Context, ev *gonostr.Event) error {
	errs := make(chan error, len(pl.relays))
	for _, r := range pl.relays {
		go func() { errs <- r.publish(ctx, ev) }()
	}
	var first error
	ok := false
	for range pl.relays {
		if err := <-errs; err == nil {
			ok = true
		} else if first == nil {
			first = err
		}
	}
	if ok {
		return nil
	}
	return first
}

// claim marks a request event as being handled; false when it already is.
func (pl *pool) claim(id string) bool {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.handling[id] {
		return false
	}
	pl.handling[id] = true
	return true
}

func (pl *pool) release(id string) {
	pl.mu.Lock()
	delete(pl.handling, id)
	pl.mu.Unlock()
}

// relay is one relay's connection.
type relay struct {
	url  string
	p    *Plugin
	pool *pool

	mu      sync.Mutex
	conn    *websocket.Conn // nil while disconnected
	waiters map[string][]chan error
	// live is the connection being subscribed on (before its EOSE too);
	// eose wakes who waits for a subscription's EOSE.
	live *websocket.Conn
	eose map[string][]chan struct{}
	// subMu orders the subscriptions sent; sent are those sent on sentOn.
	subMu  sync.Mutex
	sent   map[string]string
	sentOn *websocket.Conn
}

// run connects and serves until ctx ends, dialling again after a drop.
func (r *relay) run(ctx context.Context) {
	wait := time.Second
	for ctx.Err() == nil {
		start := time.Now()
		err := r.session(ctx)
		if ctx.Err() != nil {
			return
		}
		r.p.log.WarnContext(ctx, "nwc: relay connection lost", "relay", r.url, "err", err)
		if time.Since(start) > time.Minute {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// session is one connection: subscribe, and once the relay has sent what
// it holds (EOSE), publish the info event and take publications; read
// until it fails.
func (r *relay) session(ctx context.Context) error {
	c, _, err := websocket.Dial(ctx, r.url, &websocket.DialOptions{HTTPClient: r.p.out.Client(),
		HTTPHeader: http.Header{"User-Agent": {"hearth"}}})
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer c.CloseNow() //nolint:errcheck
	c.SetReadLimit(maxRelayMessage)
	defer r.detach()
	r.mu.Lock()
	r.live = c
	r.mu.Unlock()
	if err := r.subscribe(ctx, false); err != nil {
		return err
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return fmt.Errorf("reading: %w", err)
		}
		switch env := gonostr.ParseMessage(string(msg)).(type) {
		case *gonostr.EventEnvelope:
			if env.SubscriptionID != nil && strings.HasPrefix(*env.SubscriptionID, subscription) {
				r.dispatch(ctx, env.Event)
			}
		case *gonostr.EOSEEnvelope:
			r.eosed(string(*env))
			// The subscription is live: publish from now on.
			if string(*env) == subscription && r.attach(c) {
				go r.p.announce(ctx, r)
				r.p.host.KickSends() // notifications may wait for this relay
			}
		case *gonostr.OKEnvelope:
			r.settle(env.EventID, env.OK, env.Reason)
		case *gonostr.ClosedEnvelope:
			if strings.HasPrefix(env.SubscriptionID, subscription) {
				return fmt.Errorf("the relay closed the subscription: %s", env.Reason)
			}
		}
	}
}

// dispatch handles a request on a goroutine of its own, at most 16 at a
// time (the read loop waits for a free one: the relay's flow control).
func (r *relay) dispatch(ctx context.Context, ev gonostr.Event) {
	if !r.pool.claim(ev.ID) {
		return
	}
	select {
	case r.pool.sem <- struct{}{}:
	case <-ctx.Done():
		r.pool.release(ev.ID)
		return
	}
	go func() {
		defer func() { <-r.pool.sem; r.pool.release(ev.ID) }()
		r.p.handle(ctx, &ev)
	}()
}

// attach makes c the relay's connection; false when it already is.
func (r *relay) attach(c *websocket.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == c {
		return false
	}
	r.conn = c
	return true
}

// detach forgets the connection and fails the publications waiting on it.
func (r *relay) detach() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conn, r.live = nil, nil
	for id, ws := range r.waiters {
		for _, w := range ws {
			w <- errRelayDown
		}
		delete(r.waiters, id)
	}
}

// settle hands a relay's OK to the publications of that event.
func (r *relay) settle(id string, ok bool, reason string) {
	var err error
	if !ok && !strings.HasPrefix(reason, "duplicate:") {
		err = fmt.Errorf("refused: %s", reason)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.waiters[id] {
		w <- err
	}
	delete(r.waiters, id)
}

// publish sends ev and waits for the relay's OK, within the timeout.
func (r *relay) publish(ctx context.Context, ev *gonostr.Event) error {
	msg, err := json.Marshal([]any{"EVENT", ev})
	if err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	ch := make(chan error, 1)
	r.mu.Lock()
	c := r.conn
	if c == nil {
		r.mu.Unlock()
		return errRelayDown
	}
	r.waiters[ev.ID] = append(r.waiters[ev.ID], ch)
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, r.p.cfg.Timeout)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
		r.forget(ev.ID, ch)
		return fmt.Errorf("sending: %w", err)
	}
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		r.forget(ev.ID, ch)
		return errors.New("no OK from the relay in time")
	}
}

func (r *relay) forget(id string, ch chan error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := r.waiters[id]
	for i, w := range ws {
		if w == ch {
			r.waiters[id] = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(r.waiters[id]) == 0 {
		delete(r.waiters, id)
	}
}

func ptr[T any](v T) *T { return &v }

// connected counts the relays on which the subscription is live.
func (pl *pool) connected() int {
	n := 0
	for _, r := range pl.relays {
		r.mu.Lock()
		if r.conn != nil {
			n++
		}
		r.mu.Unlock()
	}
	return n
}
