package nwc_test

import (
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/fiatjaf/khatru"
)

// testRelay is a real Nostr relay (khatru) on a loopback address, which a
// test can stop and start again (a new relay on the same address: a relay
// that went down lost its subscriptions).
//
// khatru v0.19.1 reads its subscriptions without its lock when it
// broadcasts an event, which the race detector reports beside a REQ of
// another connection. A real client orders the two (it waits for the EOSE
// of its subscription before it publishes what should reach it), but
// over the network, which the detector does not see: every connection's
// reads and writes take one lock here, which makes that order visible to
// it (a subscription's EOSE is written after it is added; an event is read
// before it is broadcast).
type testRelay struct {
	t    *testing.T
	addr string

	mu  sync.Mutex
	srv *http.Server
	ln  net.Listener
}

func startRelay(t *testing.T) *testRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &testRelay{t: t, addr: ln.Addr().String()}
	r.serve(ln)
	t.Cleanup(r.stop)
	return r
}

func (r *testRelay) URL() string { return "ws://" + r.addr }

func (r *testRelay) serve(ln net.Listener) {
	k := khatru.NewRelay()
	store := &eventStore{}
	k.StoreEvent = append(k.StoreEvent, store.save)
	k.ReplaceEvent = append(k.ReplaceEvent, store.save)
	k.QueryEvents = append(k.QueryEvents, store.query)
	srv := &http.Server{Handler: k}
	r.mu.Lock()
	r.srv, r.ln = srv, ln
	r.mu.Unlock()
	go srv.Serve(&orderedListener{Listener: ln}) //nolint:errcheck
}

// stop closes the relay: connections to it drop and are refused.
func (r *testRelay) stop() {
	r.mu.Lock()
	srv, ln := r.srv, r.ln
	r.srv, r.ln = nil, nil
	r.mu.Unlock()
	if srv != nil {
		ln.Close()  //nolint:errcheck
		srv.Close() //nolint:errcheck
	}
}

// start serves a new relay on the address.
func (r *testRelay) start() {
	r.t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(ln)
}

// wire is the one lock of every relay connection's reads and writes.
var wire sync.Mutex

type orderedListener struct{ net.Listener }

func (l *orderedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &orderedConn{Conn: c}, nil
}

type orderedConn struct{ net.Conn }

func (c *orderedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	wire.Lock()
	wire.Unlock() //nolint:staticcheck // an empty critical section: the order is the point
	return n, err
}

func (c *orderedConn) Write(b []byte) (int, error) {
	wire.Lock()
	wire.Unlock() //nolint:staticcheck
	return c.Conn.Write(b)
}
