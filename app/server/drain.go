package server

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// drain keeps the requests in flight and the open connections, and
// whether the server is draining.
type drain struct {
	draining atomic.Bool

	mu       sync.Mutex
	inFlight map[*request]struct{}
	conns    map[net.Conn]*conn
	began    time.Time // when a request last began on a connection
}

// conn is an open connection: its state, and whether the answer on it
// (the one in flight, or the last one when idle) keeps it open after.
type conn struct {
	state http.ConnState
	// kept says that the answer was headed before the server drained,
	// without "Connection: close": its client may send another request
	// on it.
	kept bool
}

func newDrain() *drain {
	return &drain{inFlight: map[*request]struct{}{}, conns: map[net.Conn]*conn{}}
}

// connKey is the request context's key to its connection.
type connKey struct{}

// withConn puts c in its requests' context (http.Server.ConnContext).
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// track follows the connections' states (http.Server.ConnState).
func (d *drain) track(c net.Conn, s http.ConnState) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(d.conns, c)
		return
	case http.StateActive:
		d.began = time.Now()
	}
	k := d.conns[c]
	if k == nil {
		k = &conn{}
		d.conns[c] = k
	}
	if s == http.StateActive {
		k.kept = false // a new request: its answer is not headed yet
	}
	k.state = s
}

// open is the number of open connections.
func (d *drain) open() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.conns)
}

// headed records that the answer on c is headed now, and says whether it
// closes c: it does once the server drains. Under the lock that linger
// reads with, so that an answer headed before the drain is seen kept.
func (d *drain) headed(c net.Conn) (closes bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining.Load() {
		return true
	}
	if k := d.conns[c]; k != nil {
		k.kept = true
	}
	return false
}

// settled says whether the idle connections may be closed now: when no
// open connection is idle or will be (every answer on them closes them),
// or when none is in flight and no request began for quiet.
func (d *drain) settled(quiet time.Duration) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.inFlight) == 0 && time.Since(d.began) >= quiet {
		return true
	}
	for _, k := range d.conns {
		if k.state == http.StateIdle || k.kept {
			return false
		}
	}
	return true
}

// linger waits until the connections are settled (see settled), or ctx
// ends, for most at most. Meanwhile a client that sends on its keep-alive
// connection is answered, the connection closed after (the client
// reconnects, elsewhere): closing an idle connection at the moment its
// client sends a request on it would leave that request unanswered. A
// connection whose answer was headed before the drain, without "Connection:
// close", turns idle after it, so it is waited for as an idle one. While
// requests are in flight the server waits for them anyway; a client that
// has not sent for quiet since is unlikely to be sending.
func (d *drain) linger(ctx context.Context, quiet, most time.Duration) {
	tick := time.NewTicker(lingerPoll)
	defer tick.Stop()
	deadline := time.Now().Add(most)
	for time.Now().Before(deadline) && !d.settled(quiet) {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// request is a request in flight.
type request struct {
	method, path string
	since        time.Time
}

// wrap is next, its requests kept in flight; while draining, every answer
// closes its connection, the answers of the requests that began before
// too: the client opens its next connection, which a load balancer sends
// elsewhere.
func (d *drain) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := &request{method: r.Method, path: r.URL.Path, since: time.Now()}
		d.mu.Lock()
		d.inFlight[req] = struct{}{}
		d.mu.Unlock()
		defer func() {
			d.mu.Lock()
			delete(d.inFlight, req)
			d.mu.Unlock()
		}()
		c, _ := r.Context().Value(connKey{}).(net.Conn)
		cw := &closingWriter{ResponseWriter: w, d: d, conn: c}
		next.ServeHTTP(cw, r)
		cw.head() // an answer the handler wrote nothing of is headed now
	})
}

// closingWriter is a ResponseWriter that asks, with its header, to close
// the connection after the answer when the server drains by then.
type closingWriter struct {
	http.ResponseWriter
	d      *drain
	conn   net.Conn
	headed bool
}

// head marks the header before it is sent.
func (w *closingWriter) head() {
	if !w.headed {
		w.headed = true
		if w.d.headed(w.conn) {
			w.Header().Set("Connection", "close")
		}
	}
}

func (w *closingWriter) WriteHeader(code int) {
	if code >= 200 { // not an informational answer
		w.head()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *closingWriter) Write(b []byte) (int, error) {
	w.head()
	return w.ResponseWriter.Write(b)
}

// FlushError flushes the answer (http.ResponseController).
func (w *closingWriter) FlushError() error {
	w.head()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap is the writer wrapped (http.ResponseController).
func (w *closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// count is the number of requests in flight.
func (d *drain) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.inFlight)
}

// running returns the requests in flight, the oldest first.
func (d *drain) running() []request {
	d.mu.Lock()
	reqs := make([]request, 0, len(d.inFlight))
	for r := range d.inFlight {
		reqs = append(reqs, *r)
	}
	d.mu.Unlock()
	slices.SortFunc(reqs, func(a, b request) int { return a.since.Compare(b.since) })
	return reqs
}
