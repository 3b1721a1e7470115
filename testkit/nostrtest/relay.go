// Package nostrtest is what the tests of Nostr features run: a real relay
// (khatru) in process, safe under the race detector, and a Nostr Wallet
// Connect app built with go-nostr, as apps speak NIP-47.
package nostrtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiatjaf/khatru"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// Relay is a real Nostr relay (khatru) on a loopback address, which a
// test can stop and start again (a new relay on the same address: a relay
// that went down lost its subscriptions).
//
// khatru v0.19.1 reads its subscriptions without its lock when it
// broadcasts an event, so an event broadcast while another message adds a
// subscription races (go test -race), in the relay itself. The test relay
// guards them with a read-write lock of its own, taken per message in the
// first hook khatru runs for it: an event takes it to read (RejectEvent),
// a subscription to write (OverwriteFilter, which khatru runs for every
// filter, limit 0 included). A message gives it back when khatru writes
// its last answer (OK for that event's id; EOSE or CLOSED for that
// subscription), after the broadcast and after the subscription is added.
// khatru handles a connection's messages concurrently, so the holds are
// counted per message, not per connection. And the relay never removes a
// subscription (khatru removes a closed connection's subscriptions without
// that lock too): khatru never learns that a connection ended (its read
// waits for good, and its writes to a gone client succeed unread), so what
// it broadcasts to a closed one is lost, as on a real relay. Stopping the
// relay closes its connections (their other ends see it go) and the next
// start is a new relay. A CLOSE, which khatru handles without a hook,
// is muted (clientFrames): the relay keeps that subscription too.
type Relay struct {
	t    testing.TB
	addr string

	mu     sync.Mutex
	srv    *http.Server
	ln     net.Listener
	serial serial
	store  *eventStore
}

func StartRelay(t testing.TB) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{t: t, addr: ln.Addr().String()}
	r.serve(ln)
	t.Cleanup(r.Stop)
	return r
}

// URL is the relay's ws:// address.
func (r *Relay) URL() string { return "ws://" + r.addr }

func (r *Relay) serve(ln net.Listener) {
	k := khatru.NewRelay()
	k.PingPeriod, k.PongWait = time.Hour, 2*time.Hour
	k.RejectEvent = append(k.RejectEvent, func(ctx context.Context, ev *gonostr.Event) (bool, string) {
		r.serial.read(ctx, ev.ID)
		return false, ""
	})
	k.OverwriteFilter = append(k.OverwriteFilter, func(ctx context.Context, _ *gonostr.Filter) {
		r.serial.write(ctx)
	})
	store := &eventStore{}
	k.StoreEvent = append(k.StoreEvent, store.save)
	k.DeleteEvent = append(k.DeleteEvent, store.delete)
	k.ReplaceEvent = append(k.ReplaceEvent, store.save)
	k.QueryEvents = append(k.QueryEvents, store.query)
	srv := &http.Server{Handler: k}
	r.mu.Lock()
	r.srv, r.ln, r.store = srv, ln, store
	r.mu.Unlock()
	go srv.Serve(&serialListener{Listener: ln, s: &r.serial}) //nolint:errcheck
}

// Stored are the events the relay holds that match f (none of a relay
// not started).
func (r *Relay) Stored(f gonostr.Filter) []*gonostr.Event {
	r.mu.Lock()
	s := r.store
	r.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.matching(f)
}

// Forget drops every event the relay holds (a relay that lost its
// database), keeping its connections.
func (r *Relay) Forget() {
	r.mu.Lock()
	s := r.store
	r.mu.Unlock()
	if s != nil {
		s.mu.Lock()
		s.events = nil
		s.mu.Unlock()
	}
}

// Stop closes the relay: connections to it drop and are refused.
func (r *Relay) Stop() {
	r.mu.Lock()
	srv, ln := r.srv, r.ln
	r.srv, r.ln = nil, nil
	r.mu.Unlock()
	if srv != nil {
		ln.Close()  //nolint:errcheck
		srv.Close() //nolint:errcheck
		r.serial.stop()
	}
}

// Start serves a new relay on the address.
func (r *Relay) Start() {
	r.t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(ln)
}

// serial is the relay's guard over khatru's subscriptions, and its
// connections by remote address.
type serial struct {
	rw sync.RWMutex

	mu    sync.Mutex
	conns map[string]*serialConn
}

// stop ends the relay's connections (hijacked by the websocket upgrade,
// which http.Server.Close does not close).
func (s *serial) stop() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Conn.Close() //nolint:errcheck
	}
}

// conn is the connection a hook's message came on.
func (s *serial) conn(ctx context.Context) *serialConn {
	ws := khatru.GetConnection(ctx)
	if ws == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[ws.Request.RemoteAddr]
}

// read holds the guard to read until the OK for event id is written.
func (s *serial) read(ctx context.Context, id string) {
	c := s.conn(ctx)
	if c == nil {
		return
	}
	s.rw.RLock()
	c.mu.Lock()
	c.reads[id]++
	c.mu.Unlock()
}

// write holds the guard to write until the EOSE or CLOSED of the
// subscription is written; a subscription's later filters (the same
// request context) hold it already.
func (s *serial) write(ctx context.Context) {
	c := s.conn(ctx)
	if c == nil {
		return
	}
	c.mu.Lock()
	_, held := c.reqs[ctx]
	c.mu.Unlock()
	if held {
		return
	}
	s.rw.Lock()
	c.mu.Lock()
	c.reqs[ctx] = khatru.GetSubscriptionID(ctx)
	c.mu.Unlock()
}

type serialListener struct {
	net.Listener
	s *serial
}

func (l *serialListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	sc := &serialConn{Conn: c, s: l.s, reads: map[string]int{}, reqs: map[context.Context]string{}}
	l.s.mu.Lock()
	if l.s.conns == nil {
		l.s.conns = map[string]*serialConn{}
	}
	l.s.conns[c.RemoteAddr().String()] = sc
	l.s.mu.Unlock()
	return sc, nil
}

// serialConn is a client's connection as khatru sees it: it tells the
// guard when a message's last answer is written.
type serialConn struct {
	net.Conn
	s *serial

	mu    sync.Mutex
	reads map[string]int             // event id → its messages holding the guard to read
	reqs  map[context.Context]string // a subscription's request context → its id, holding to write
	dead  atomic.Bool                // the client is gone

	upgraded atomic.Bool // the server answered 101: websocket frames follow
	frames   clientFrames
}

// Read hides the end of the connection from khatru: its reader waits for
// good. What the client sends passes through frames, which mutes what would
// make khatru drop a subscription.
func (c *serialConn) Read(b []byte) (int, error) {
	if !c.upgraded.Load() {
		return c.read(b)
	}
	return c.frames.read(b, c.read)
}

// read reads the client's bytes; at their end it waits for good.
func (c *serialConn) read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) { // a deadline is the HTTP server's, not the end
		c.dead.Store(true)
		select {}
	}
	return n, err
}

// Write gives the guard back after a message's last answer. Once the
// client is gone, what khatru writes is dropped as written, so that it
// goes on writing (and answering) as if the client were slow to read.
func (c *serialConn) Write(b []byte) (int, error) {
	if !c.upgraded.Load() && bytes.HasPrefix(b, []byte("HTTP/1.1 101 ")) {
		c.upgraded.Store(true)
	}
	n, err := len(b), error(nil)
	if !c.dead.Load() {
		n, err = c.Conn.Write(b)
		if err != nil {
			c.dead.Store(true)
			n, err = len(b), nil
		}
	}
	c.answered(b)
	return n, err
}

// answered releases the hold of the message whose last answer frame b is
// (a server's frame: unmasked, its header 2, 4 or 10 bytes long).
func (c *serialConn) answered(b []byte) {
	if len(b) < 2 {
		return
	}
	head := 2
	switch b[1] & 0x7f {
	case 126:
		head = 4
	case 127:
		head = 10
	}
	if len(b) <= head || !bytes.HasPrefix(b[head:], []byte(`["`)) {
		return
	}
	var msg []json.RawMessage
	if json.Unmarshal(b[head:], &msg) != nil || len(msg) < 2 {
		return
	}
	var label, id string
	if json.Unmarshal(msg[0], &label) != nil || json.Unmarshal(msg[1], &id) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch label {
	case "OK":
		if c.reads[id] > 0 {
			c.reads[id]--
			c.s.rw.RUnlock()
		}
	case "EOSE", "CLOSED":
		for ctx, sub := range c.reqs {
			if sub == id {
				delete(c.reqs, ctx)
				c.s.rw.Unlock()
				return
			}
		}
	}
}
