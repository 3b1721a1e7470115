package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
)

// drainServer serves h, tracked by a new drain, on a loopback port, and
// returns the drain, the base URL and a client that keeps one connection.
func drainServer(t *testing.T, h http.Handler) (*drain, string, *http.Client) {
	t.Helper()
	d := newDrain()
	srv := &http.Server{Handler: d.wrap(h), ConnState: d.track, ConnContext: withConn}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln) //nolint:errcheck // closed by the cleanup
	t.Cleanup(func() { srv.Close() })
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	return d, "http://" + ln.Addr().String(), client
}

// get sends a GET to url and reads the whole answer; it says whether the
// answer closes its connection.
func get(client *http.Client, url string) (closes bool, err error) {
	res, err := client.Get(url)
	if err != nil {
		return false, fmt.Errorf("GET %s: %w", url, err)
	}
	defer res.Body.Close()
	if _, err := io.ReadAll(res.Body); err != nil {
		return false, fmt.Errorf("GET %s: reading: %w", url, err)
	}
	return res.Close, nil
}

// mustGet is get, failing the test on an error.
func mustGet(t *testing.T, client *http.Client, url string) (closes bool) {
	t.Helper()
	closes, err := get(client, url)
	if err != nil {
		t.Fatal(err)
	}
	return closes
}

// An answer headed before the drain keeps its connection open, so the
// drain does not count the connection settled while that answer is in
// flight, nor once it is idle after it; the client's next request on it
// is answered with "Connection: close", and then the drain is settled.
func TestDrainWaitsForAnAnswerHeadedBeforeIt(t *testing.T) {
	headed, release := make(chan struct{}), make(chan struct{})
	d, base, client := drainServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush() //nolint:errcheck // the test reads it
			close(headed)
			<-release
		}
		io.WriteString(w, "answer") //nolint:errcheck // the client reads it
	}))
	type answer struct {
		closes bool
		err    error
	}
	slow := make(chan answer, 1)
	go func() {
		closes, err := get(client, base+"/slow")
		slow <- answer{closes, err}
	}()
	<-headed
	d.draining.Store(true)
	settled := d.settled(time.Hour)
	close(release)
	if settled {
		t.Fatal("settled while an answer headed before the drain is in flight: its connection will turn idle")
	}
	if a := <-slow; a.err != nil || a.closes {
		t.Fatalf("the answer headed before the drain: %v, closes its connection %v; the test needs it answered and kept", a.err, a.closes)
	}
	poll.Until(t, 10*time.Second, func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, k := range d.conns {
			if k.state == http.StateIdle {
				return nil
			}
		}
		return errors.New("the connection is not idle yet")
	})
	if d.settled(time.Hour) {
		t.Fatal("settled with an idle connection that its client may send on")
	}
	if !mustGet(t, client, base+"/next") {
		t.Fatal("an answer while draining does not close its connection")
	}
	poll.Until(t, 10*time.Second, func() error {
		if !d.settled(time.Hour) {
			return errors.New("not settled after the kept connection's next answer closed it")
		}
		return nil
	})
	// Settled means that no connection will turn idle: the one whose
	// answer closes it is closed by the server once that answer is out.
	poll.Until(t, 10*time.Second, func() error {
		if n := d.open(); n != 0 {
			return fmt.Errorf("%d connections open after the drain settled", n)
		}
		return nil
	})
}

// While draining, an answer the handler wrote nothing of closes its
// connection too; and a drain with nothing in flight is settled once no
// request began for the quiet time.
func TestDrainClosesAnEmptyAnswer(t *testing.T) {
	d, base, client := drainServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	if mustGet(t, client, base+"/kept") {
		t.Fatal("an answer before the drain closes its connection")
	}
	if d.settled(time.Hour) {
		t.Fatal("settled with an idle kept connection")
	}
	if !d.settled(0) {
		t.Fatal("not settled with nothing in flight and no quiet time asked")
	}
	d.draining.Store(true)
	if !mustGet(t, client, base+"/empty") {
		t.Fatal("an empty answer while draining does not close its connection")
	}
}
