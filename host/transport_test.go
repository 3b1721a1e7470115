package host_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// courier is a test transport: it fails each URL the number of times
// failures says, answers "not ready" while down, and records what it
// delivered.
type courier struct {
	mu        sync.Mutex
	failures  map[string]int
	down      bool
	delivered []string
	heard     map[string][]string // states Attempted heard, by send id
}

func (c *courier) deliver(_ context.Context, url string, body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.down:
		return fmt.Errorf("no connection: %w", host.ErrNotReady)
	case url == "never":
		return fmt.Errorf("no such place: %w", host.ErrGiveUp)
	case c.failures[url] > 0:
		c.failures[url]--
		return errors.New("refused")
	}
	c.delivered = append(c.delivered, url+" "+string(body))
	return nil
}

func (c *courier) attempted(_ context.Context, st *host.SendStatus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.heard[st.ID] = append(c.heard[st.ID], st.State)
}

func (c *courier) setDown(down bool) {
	c.mu.Lock()
	c.down = down
	c.mu.Unlock()
}

func (c *courier) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.delivered...)
}

// TestTransportDeliversABuiltinsSends: on both databases, a built-in's
// sends queued in the transaction of its change (and only if it commits)
// are delivered by its own transport, run in its lead: retried with
// backoff until delivered, given up at once on ErrGiveUp, held without
// counting an attempt while the transport is not ready, in order per
// dest; the built-in hears each attempt, and reads the sends' statuses.
// A WebAssembly plugin has no transport.
func TestTransportDeliversABuiltinsSends(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{})
		ctx := context.Background()
		p, err := e.Registry.RegisterBuiltin(&host.Manifest{Name: "pigeon", Version: "1.0.0", ABI: host.ABIVersion}, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		c := e.Registry.API().For(p)
		cr := &courier{failures: map[string]int{"flaky": 2}, heard: map[string][]string{}, down: true}
		queue := func(fail error, sends ...host.Send) []string {
			t.Helper()
			var ids []string
			err := db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
				for _, s := range sends {
					s.Via = "coop"
					st, err := c.Queue(ctx, tx, s)
					if err != nil {
						return err
					}
					ids = append(ids, st.ID)
				}
				return fail
			})
			if !errors.Is(err, fail) {
				t.Fatalf("queueing: %v", err)
			}
			c.KickSends()
			return ids
		}
		rolledBack := errors.New("rolled back")
		queue(rolledBack, host.Send{URL: "lost", Body: []byte("never queued")})
		ids := queue(nil,
			host.Send{URL: "flaky", Body: []byte("1"), Dest: "d"},
			host.Send{URL: "steady", Body: []byte("2"), Dest: "d"},
			host.Send{URL: "never", Body: []byte("3")},
			host.Send{URL: "dup", Body: []byte("4"), Key: "k"})
		if again := queue(nil, host.Send{URL: "dup", Body: []byte("4 again"), Key: "k"}); again[0] != ids[3] {
			t.Fatalf("a key queued twice made a second send")
		}
		// The built-in's own retry window, longer than a plugin's sends may
		// be tried (an operator's nostr.retry_hours of 10 days).
		ids = append(ids, queue(nil, host.Send{URL: "patient", Body: []byte("5"), GiveUpAfter: 10 * 24 * time.Hour})...)

		run, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- c.Deliver(run, host.Transport{Via: "coop", Deliver: cr.deliver, Attempted: cr.attempted, Poll: 20 * time.Millisecond,
				FirstRetry: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
		}()
		t.Cleanup(func() {
			stop()
			if err := <-done; err != nil {
				t.Errorf("Deliver: %v", err)
			}
		})
		e.Eventually("attempts while the transport is not ready", func() bool {
			cr.mu.Lock()
			defer cr.mu.Unlock()
			return len(cr.heard[ids[0]]) >= 2
		})
		sts, err := c.SendStatuses(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if st := sts[ids[0]]; st.State != host.SendPending || st.Attempts != 0 || st.LastError == nil {
			t.Fatalf("held while not ready: %+v, want pending, no attempt counted, the reason", st)
		}
		cr.setDown(false)
		c.KickSends()
		e.Eventually("every send done", func() bool {
			sts, err = c.SendStatuses(ctx, ids)
			if err != nil {
				return false
			}
			for _, id := range ids {
				if sts[id] == nil || sts[id].State == host.SendPending {
					return false
				}
			}
			return true
		})
		if st := sts[ids[0]]; st.State != host.SendDelivered || st.Attempts != 3 || st.DoneAt == nil {
			t.Fatalf("the flaky send: %+v, want delivered on its third attempt", st)
		}
		if st := sts[ids[2]]; st.State != host.SendGivenUp || st.Attempts != 1 {
			t.Fatalf("a send that can never be delivered: %+v, want given up at its first attempt", st)
		}
		got := cr.got()
		want := map[string]bool{"flaky 1": true, "steady 2": true, "dup 4": true, "patient 5": true}
		if len(got) != 4 || !want[got[0]] || !want[got[1]] || !want[got[2]] || !want[got[3]] {
			t.Fatalf("delivered %q, want each of %v once", got, want)
		}
		if slices.Index(got, "steady 2") < slices.Index(got, "flaky 1") {
			t.Fatalf("delivered %q: the second send to a dest before the first", got)
		}
		cr.mu.Lock()
		heard := cr.heard[ids[0]]
		cr.mu.Unlock()
		if heard[len(heard)-1] != host.SendDelivered {
			t.Fatalf("the built-in heard %v of the flaky send, want it to end delivered", heard)
		}

		// A WebAssembly plugin queues HTTP requests only, and has no transport.
		e.Install(plugintest.Build(t, "testdata/plugins/noop"), wasmManifest("visitor", nil))
		e.Enable("visitor", "")
		wasm, err := e.Registry.Get("visitor")
		if err != nil {
			t.Fatal(err)
		}
		v := e.Registry.API().For(wasm)
		if _, err := v.Queue(ctx, db.W, host.Send{Via: "coop", URL: "x"}); !isPermission(err) {
			t.Fatalf("a WebAssembly plugin's send through a transport: %v", err)
		}
		if err := v.Deliver(ctx, host.Transport{Via: "coop", Deliver: cr.deliver}); !isPermission(err) {
			t.Fatalf("a WebAssembly plugin's transport: %v", err)
		}
		if _, err := c.Send(ctx, host.Send{Via: "coop", URL: "x"}); err == nil {
			t.Fatal("Send took a send through a transport (Queue's)")
		}
	})
}
