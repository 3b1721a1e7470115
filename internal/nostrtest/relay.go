// Package nostrtest is what the tests of Nostr features run: a real relay
// (khatru) in process, safe under the race detector, and a Nostr Wallet
// Connect app built with go-nostr, as apps speak NIP-47.
package nostrtest

import (
	"bytes"
	"context"
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
// broadcasts an event, so an event broadcast while another connection
// subscribes races (go test -race), in the relay itself. The test relay
// handles one message at a time, across its connections: each message
// takes a lock in the first hook khatru runs for it (RejectEvent for an
// event, RejectFilter for a subscription) and gives it back when khatru
// writes the message's last answer on that connection (OK, EOSE or
// CLOSED: after the broadcast, after the subscription is added). And it
// never removes a subscription (khatru removes a closed connection's
// subscriptions without that lock too): khatru never learns that a
// connection ended (its read waits for good, no ping or read deadline
// comes due during a test), so what it broadcasts to a closed one is lost,
// as on a real relay. Stopping the relay closes its connections (their
// other ends see it go) and the next start is a new relay.
type Relay struct {
	t    testing.TB
	addr string

	mu     sync.Mutex
	srv    *http.Server
	ln     net.Listener
	serial serial
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
	k.RejectEvent = append(k.RejectEvent, func(ctx context.Context, _ *gonostr.Event) (bool, string) {
		r.serial.take(ctx)
		return false, ""
	})
	k.RejectFilter = append(k.RejectFilter, func(ctx context.Context, _ gonostr.Filter) (bool, string) {
		r.serial.take(ctx)
		return false, ""
	})
	store := &eventStore{}
	k.StoreEvent = append(k.StoreEvent, store.save)
	k.ReplaceEvent = append(k.ReplaceEvent, store.save)
	k.QueryEvents = append(k.QueryEvents, store.query)
	srv := &http.Server{Handler: k}
	r.mu.Lock()
	r.srv, r.ln = srv, ln
	r.mu.Unlock()
	go srv.Serve(&serialListener{Listener: ln, s: &r.serial}) //nolint:errcheck
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

// serial is the relay's one message at a time: the lock, and which
// connection (by remote address) holds it.
type serial struct {
	lock sync.Mutex

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

// take has the message's connection hold the lock, unless it does.
func (s *serial) take(ctx context.Context) {
	ws := khatru.GetConnection(ctx)
	if ws == nil {
		return
	}
	s.mu.Lock()
	c := s.conns[ws.Request.RemoteAddr]
	s.mu.Unlock()
	if c == nil || c.holding.Load() || c.dead.Load() {
		return
	}
	s.lock.Lock()
	c.holding.Store(true)
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
	sc := &serialConn{Conn: c, s: l.s}
	l.s.mu.Lock()
	if l.s.conns == nil {
		l.s.conns = map[string]*serialConn{}
	}
	l.s.conns[c.RemoteAddr().String()] = sc
	l.s.mu.Unlock()
	return sc, nil
}

type serialConn struct {
	net.Conn
	s       *serial
	holding atomic.Bool
	// dead is set once the other side is gone: what khatru still handles
	// of it takes no lock (its answers may never be written).
	dead atomic.Bool
}

// Read hides the end of the connection from khatru: its reader waits for
// good.
func (c *serialConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) { // a deadline is the HTTP server's, not the end
		c.die()
		select {}
	}
	return n, err
}

// die gives the lock back if the connection held it, for good.
func (c *serialConn) die() {
	c.dead.Store(true)
	if c.holding.CompareAndSwap(true, false) {
		c.s.lock.Unlock()
	}
}

// Close gives the lock back if the connection held it.
func (c *serialConn) Close() error {
	c.die()
	return c.Conn.Close()
}

// lastAnswers are the starts of the messages that end the handling of a
// client's message.
var lastAnswers = [][]byte{[]byte(`["OK"`), []byte(`["EOSE"`), []byte(`["CLOSED"`)}

// Write gives the lock back after the last answer of the message that took
// it (a websocket frame's header is at most 10 bytes).
func (c *serialConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil {
		c.die() // khatru's websocket writes nothing more on it
		return n, err
	}
	head := b[:min(len(b), 20)]
	for _, a := range lastAnswers {
		if bytes.Contains(head, a) && c.holding.CompareAndSwap(true, false) {
			c.s.lock.Unlock()
			break
		}
	}
	return n, err
}
