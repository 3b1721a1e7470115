package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/signature"
	"github.com/hearthwallet/hearth/plugintest"
)

// A stream whose receiver holds its first request while far more events
// than the tail hands a stream ahead are written falls behind, reads the
// outbox itself, and catches up: every event arrives, in order, signed,
// each once (nothing failed); another stream of the same wallet, whose
// receiver answers at once, is not held back meanwhile; and after a
// restart of the sender, only events written since are sent.
func TestStreamFallsBehindAndCatchesUp(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		k := newTally(t, db, 10*time.Second)
		e, c, ctx := k.e, k.c, context.Background()

		type receiver struct {
			mu  sync.Mutex
			ids []int64
		}
		hold := make(chan struct{})
		var held sync.Once
		serve := func(r *receiver, slow bool) string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				body, _ := io.ReadAll(req.Body)
				if signature.Verify("s3cret", req.Header.Get(signature.Header), body, time.Now(), time.Minute) != nil {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				if slow {
					held.Do(func() { <-hold })
				}
				var ev struct{ ID int64 }
				json.Unmarshal(body, &ev) //nolint:errcheck // checked by the ids
				r.mu.Lock()
				r.ids = append(r.ids, ev.ID)
				r.mu.Unlock()
			}))
			t.Cleanup(srv.Close)
			return srv.URL
		}
		var slow, quick receiver
		urls := map[string]string{"slow": serve(&slow, true), "quick": serve(&quick, false)}
		var release sync.Once
		t.Cleanup(func() { release.Do(func() { close(hold) }) }) // before the receivers close
		for key, url := range urls {
			k.open(t, key, url)
		}
		run := func() (stop func()) {
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); e.API.Sender().Run(rctx, e.Outbox) }()
			return func() { cancel(); <-done }
		}
		emit := func(n int) { k.emit(t, n) }
		count := func(r *receiver) []int64 {
			r.mu.Lock()
			defer r.mu.Unlock()
			return append([]int64(nil), r.ids...)
		}
		inOrder := func(name string, ids []int64, n int) {
			t.Helper()
			if len(ids) != n {
				t.Fatalf("%s got %d events, want %d", name, len(ids), n)
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("%s got event %d after %d", name, ids[i], ids[i-1])
				}
			}
		}

		stop := run()
		defer func() { stop() }()
		const n = 400 // more than a stream is handed ahead
		emit(n)
		e.Eventually("the quick stream's events", func() bool { return len(count(&quick)) == n })
		if got := len(count(&slow)); got != 0 {
			t.Fatalf("the held stream got %d events", got)
		}
		release.Do(func() { close(hold) })
		e.Eventually("the slow stream's events", func() bool { return len(count(&slow)) == n })
		inOrder("the quick stream", count(&quick), n)
		inOrder("the slow stream", count(&slow), n)
		e.Eventually("the cursors saved", func() bool {
			st, err := c.StreamStates(ctx, []string{"slow", "quick"})
			return err == nil && st["slow"].Cursor > 0 && st["slow"].Cursor == st["quick"].Cursor
		})
		stop()

		emit(100)
		stop = run()
		e.Eventually("the events written while stopped", func() bool { return len(count(&slow)) == n+100 && len(count(&quick)) == n+100 })
		inOrder("the slow stream, restarted", count(&slow), n+100)
		e.Eventually("every attempt logged", func() bool {
			as, err := c.StreamAttempts(ctx, "slow", 1000)
			return err == nil && len(as) == n+100
		})
	})
}

// Streams held back together (their receivers all slow at once, as the
// pace holds them while the machine is busy) stay on the tail: the outbox
// is read once for all of them, not once per stream, and each gets every
// event, in order.
func TestStreamsHeldBackTogetherShareOneReading(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		k := newTally(t, db, 30*time.Second)
		e := k.e

		gate := make(chan struct{})
		var opened sync.Once
		t.Cleanup(func() { opened.Do(func() { close(gate) }) }) // before the receivers close
		var mu sync.Mutex
		got := map[string][]int64{}
		const streams, n = 3, 300 // 903 deliveries: some 9 s at the pace's floor, on a busy machine
		for i := range streams {
			key := string(rune('a' + i))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				body, _ := io.ReadAll(req.Body)
				var ev struct{ ID int64 }
				json.Unmarshal(body, &ev) //nolint:errcheck // checked by the ids
				mu.Lock()
				got[key] = append(got[key], ev.ID)
				first := len(got[key]) == 1
				mu.Unlock()
				if !first {
					<-gate
				}
			}))
			t.Cleanup(srv.Close)
			k.open(t, key, srv.URL)
		}
		received := func() (least int) {
			mu.Lock()
			defer mu.Unlock()
			least = n + 1
			for i := range streams {
				least = min(least, len(got[string(rune('a'+i))]))
			}
			return least
		}
		rctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); e.API.Sender().Run(rctx, e.Outbox) }()
		t.Cleanup(func() { cancel(); <-done })

		emit := func(n int) { k.emit(t, n) }
		// One event, answered at once: the streams catch up and the tail
		// feeds them from there.
		emit(1)
		e.Eventually("the streams on the tail", func() bool { return received() == 1 && e.API.Sender().AttachedStreams() == streams })
		before := e.Outbox.Stats().Records
		emit(n)
		e.Eventually("every receiver holding its second event", func() bool { return received() == 2 })
		opened.Do(func() { close(gate) })
		e.Eventually("every event at every receiver", func() bool { return received() == n+1 })
		mu.Lock()
		for key, ids := range got {
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("stream %s got event %d after %d", key, ids[i], ids[i-1])
				}
			}
		}
		mu.Unlock()
		if read := e.Outbox.Stats().Records - before; read > 2*n {
			t.Fatalf("the streams read %d records of the outbox for %d events: each stream read them for itself", read, n)
		}
	})
}

// tally is a built-in whose streams carry its own events (tally.counted)
// of alice's wallet, in a host whose sender the test runs (NoRun).
type tally struct {
	e     *plugintest.Env
	c     *host.Caller
	alice string
}

// newTally registers the built-in; its streams' requests time out after
// timeout.
func newTally(t *testing.T, db *store.DB, timeout time.Duration) *tally {
	t.Helper()
	e := plugintest.New(t, db, plugintest.Options{NoRun: true, AllowPrivate: true})
	m := &host.Manifest{Name: "tally", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.HTTPAny},
		Emits: []string{"tally.counted"}}
	p, err := e.Registry.RegisterBuiltin(m, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	c := e.Registry.API().For(p)
	c.SetStreamPolicy(host.StreamPolicy{Outbound: host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: timeout})})
	return &tally{e: e, c: c, alice: e.Wallet("alice", 0).ID}
}

// open opens stream key of alice's tally.counted events to url.
func (k *tally) open(t *testing.T, key, url string) {
	t.Helper()
	err := k.c.Tx(context.Background(), func(ctx context.Context, tx bun.Tx, _ host.Emitter) error {
		return k.c.OpenStream(ctx, tx, host.StreamSpec{Key: key, WalletID: k.alice, Types: []string{"tally.counted"},
			URL: url, Secret: "s3cret"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// emit adds n events, in transactions of 50 at most.
func (k *tally) emit(t *testing.T, n int) {
	t.Helper()
	for n > 0 {
		batch := min(n, 50)
		n -= batch
		err := k.c.Tx(context.Background(), func(ctx context.Context, _ bun.Tx, emit host.Emitter) error {
			for range batch {
				if err := emit(ctx, host.NewEvent{Type: "tally.counted", WalletID: k.alice, SubjectID: "s", Data: map[string]int{}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
