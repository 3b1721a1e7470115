package outbox_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// client is a stream client's ResponseWriter: it keeps what it is sent,
// or, while blocked, never returns from Write (a client that stopped
// reading).
type client struct {
	mu      sync.Mutex
	header  http.Header
	text    strings.Builder
	written chan struct{} // signalled on each write
	// block, when not nil, holds every write after the first blockAfter
	// until it is closed.
	block      chan struct{}
	blockAfter int
	writes     int
	deadline   time.Time
}

// SetWriteDeadline is what http.ResponseController sets.
func (c *client) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	return nil
}

func newClient() *client {
	return &client{header: http.Header{}, written: make(chan struct{}, 1)}
}

func (c *client) Header() http.Header { return c.header }
func (c *client) WriteHeader(int)     {}
func (c *client) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	held := c.block != nil && c.writes > c.blockAfter
	deadline := c.deadline
	c.mu.Unlock()
	if held {
		select {
		case <-c.block:
		case <-time.After(time.Until(deadline)):
			return 0, os.ErrDeadlineExceeded
		}
	}
	c.mu.Lock()
	c.text.Write(b)
	c.mu.Unlock()
	select {
	case c.written <- struct{}{}:
	default:
	}
	return len(b), nil
}

// sse is one server-sent event.
type sse struct {
	id   int64
	typ  string
	data string
}

// events returns the events the client got, comments left out.
func (c *client) events() []sse {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sse
	for _, block := range strings.Split(c.text.String(), "\n\n") {
		var e sse
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "id":
				e.id, _ = strconv.ParseInt(v, 10, 64)
			case "event":
				e.typ = v
			case "data":
				e.data = v
			}
		}
		if e.typ != "" {
			out = append(out, e)
		}
	}
	return out
}

// waitEvents waits until the client has n events.
func (c *client) waitEvents(t *testing.T, n int) []sse {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if evs := c.events(); len(evs) >= n {
			return evs
		}
		select {
		case <-c.written:
		case <-deadline:
			var ids []int64
			for _, e := range c.events() {
				ids = append(ids, e.id)
			}
			t.Fatalf("the client got %d events, want %d: ids %v", len(ids), n, ids)
		}
	}
}

// serve runs a stream to c until the returned stop is called; stop
// returns Serve's error.
func serve(hub *outbox.Hub, c *client, st outbox.Stream) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- hub.Serve(ctx, c, st) }()
	return func() error { cancel(); return <-done }
}

// waitClients waits until hub serves n clients.
func waitClients(t *testing.T, hub *outbox.Hub, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for hub.Clients() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the hub serves %d clients, want %d", hub.Clients(), n)
		}
		time.Sleep(time.Millisecond) // polling a condition, not timing
	}
}

// runHub returns a running hub of box.
func runHub(t *testing.T, box *outbox.Outbox) *outbox.Hub {
	t.Helper()
	hub := outbox.NewHub(box)
	hub.Buffer = 8
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return hub
}

// A client sees its wallet's events, live, with their outbox ids; when
// its connection ends (a restart of the server, here a new outbox and
// hub) and it resumes with its Last-Event-ID, it gets each later event
// once, in order, the ones written while it was away included.
func TestStreamResumesAfterLastEventID(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		hub := runHub(t, f.box)
		c := newClient()
		stop := serve(hub, c, outbox.Stream{WalletID: f.bob})
		waitClients(t, hub, 1)
		f.payInternal(t, 1000)
		f.payInternal(t, 2000)
		got := c.waitEvents(t, 2)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		want := readAll(t, f.box, f.fundingEvent, outbox.Filter{WalletID: f.bob})
		if len(got) != 2 || got[0].id != want[0].ID || got[1].id != want[1].ID || got[0].typ != event.InvoiceSettled {
			t.Fatalf("live events = %+v, want %+v", got, want)
		}
		if !strings.Contains(got[0].data, `"payment_preimage"`) || !strings.Contains(got[0].data, `"wallet_id":"`+f.bob) {
			t.Fatalf("event data %s", got[0].data)
		}
		last := got[1].id

		// Away: two more, then a new process.
		f.payInternal(t, 3000)
		f.payInternal(t, 4000)
		box2 := f.open(t, outbox.Config{})
		waitHead(t, box2, waitHead(t, f.box, last+4))
		hub2 := runHub(t, box2)
		c2 := newClient()
		stop = serve(hub2, c2, outbox.Stream{WalletID: f.bob, After: last, Resume: true})
		waitClients(t, hub2, 1)
		f.payInternal(t, 5000)
		resumed := c2.waitEvents(t, 3)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		want = readAll(t, box2, last, outbox.Filter{WalletID: f.bob})
		if len(resumed) != 3 || len(want) != 3 {
			t.Fatalf("resumed %+v, want %+v", resumed, want)
		}
		for i := range want {
			if resumed[i].id != want[i].ID {
				t.Fatalf("resumed %+v, want %+v", resumed, want)
			}
		}
	})
}

// A client that stops reading is dropped when a write to it times out,
// while payments go on (they are all done while it is still stuck) and
// another client gets every event, in order, although its buffer holds
// fewer events than came at once.
func TestSlowStreamClientIsDropped(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		hub := runHub(t, f.box)
		hub.WriteTimeout = 5 * time.Second
		slow, fast := newClient(), newClient()
		slow.block, slow.blockAfter = make(chan struct{}), 1 // its first event never gets through
		defer close(slow.block)
		slowDone := make(chan error, 1)
		go func() { slowDone <- hub.Serve(context.Background(), slow, outbox.Stream{}) }()
		stopFast := serve(hub, fast, outbox.Stream{})
		for hub.Clients() < 2 {
			select {
			case <-slow.written:
			case <-fast.written:
			}
		}
		n := 10 // 20 events, more than the buffer of 8
		for i := range n {
			f.payInternal(t, int64(1000+i))
		}
		got := fast.waitEvents(t, 2*n)
		select {
		case err := <-slowDone:
			t.Fatalf("the slow client was dropped (%v) before the payments were all streamed", err)
		default:
		}
		if err := <-slowDone; !errors.Is(err, outbox.ErrDropped) {
			t.Fatalf("the slow client's stream ended with %v, want ErrDropped", err)
		}
		if err := stopFast(); err != nil {
			t.Fatal(err)
		}
		want := readAll(t, f.box, f.fundingEvent, outbox.Filter{})
		if len(got) != len(want) {
			t.Fatalf("the fast client got %d events, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].id != want[i].ID {
				t.Fatalf("the fast client got %+v, want %+v", got, want)
			}
		}
		if len(slow.events()) >= len(want) {
			t.Fatalf("the slow client got all %d events", len(want))
		}
	})
}

// A Last-Event-ID this outbox never gave out (a database restored from an
// older backup) gets a reset event carrying the head's id, then the events
// from there on: the client knows to read the records again instead of
// waiting for ids that will never come.
func TestStreamResetsAnUnknownLastEventID(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		hub := runHub(t, f.box)
		head, _ := f.box.Head()
		c := newClient()
		stop := serve(hub, c, outbox.Stream{WalletID: f.bob, After: head + 1000, Resume: true})
		waitClients(t, hub, 1)
		f.payInternal(t, 1000)
		got := c.waitEvents(t, 2)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if got[0].typ != "reset" || got[0].id != head || !strings.Contains(got[0].data, `"last_event_id":`+strconv.FormatInt(head, 10)) {
			t.Fatalf("first event %+v, want a reset to %d", got[0], head)
		}
		if got[1].typ != event.InvoiceSettled || got[1].id <= head {
			t.Fatalf("after the reset %+v", got[1])
		}
	})
}
