package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/uptrace/bun"
)

// A settled internal payment reaches the payer's and the payee's
// receivers, signed with each webhook's secret; a tampered body, another
// secret or an old signature fail verification.
func TestDeliveriesAreSigned(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		ra, rb := newReceiver(t, nil), newReceiver(t, nil)
		wa := k.create(user(alice), ra.URL+"/hook", "payment.settled")
		wb := k.create(user(bob), rb.URL, "invoice.settled", "payment.settled")
		if !strings.HasPrefix(wa.Secret, "whsec_") || wa.Secret == wb.Secret {
			t.Fatalf("secrets %q %q", wa.Secret, wb.Secret)
		}
		paid := pay(e, alice, bob, 21_000)
		e.Eventually("both deliveries", func() bool { return len(ra.all()) == 1 && len(rb.all()) == 1 })
		for _, c := range []struct {
			r      *receiver
			secret string
			typ    string
			wallet string
		}{{ra, wa.Secret, "payment.settled", alice.ID}, {rb, wb.Secret, "invoice.settled", bob.ID}} {
			d := c.r.all()[0]
			if d.Event.Type != c.typ || d.Event.WalletID != c.wallet || d.Event.ID <= 0 || d.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("delivery %s: %+v", d.Body, d.Event)
			}
			sig := d.Header.Get(webhooks.SignatureHeader)
			now := time.Now()
			if err := webhooks.Verify(c.secret, sig, d.Body, now, 5*time.Minute); err != nil {
				t.Fatalf("verifying %q: %v", sig, err)
			}
			tampered := []byte(strings.Replace(string(d.Body), "21000", "99000", 1))
			if string(tampered) == string(d.Body) {
				t.Fatalf("nothing to tamper with in %s", d.Body)
			}
			if err := webhooks.Verify(c.secret, sig, tampered, now, 5*time.Minute); !errors.Is(err, webhooks.ErrBadSignature) {
				t.Fatalf("tampered body: %v", err)
			}
			if err := webhooks.Verify("whsec_other", sig, d.Body, now, 5*time.Minute); !errors.Is(err, webhooks.ErrBadSignature) {
				t.Fatalf("other secret: %v", err)
			}
			if err := webhooks.Verify(c.secret, sig, d.Body, now.Add(10*time.Minute), 5*time.Minute); !errors.Is(err, webhooks.ErrStale) {
				t.Fatalf("replayed later: %v", err)
			}
			if err := webhooks.Verify(c.secret, "", d.Body, now, 5*time.Minute); !errors.Is(err, webhooks.ErrNoSignature) {
				t.Fatalf("no header: %v", err)
			}
		}
		var rec struct {
			ID string `json:"id"`
		}
		json.Unmarshal(ra.all()[0].Event.Data, &rec) //nolint:errcheck
		if rec.ID != paid {
			t.Fatalf("payment.settled of %s, want %s", rec.ID, paid)
		}
		e.Eventually("the attempt recorded", func() bool {
			as := k.attempts(user(alice), wa.ID)
			return len(as) == 1 && as[0].StatusCode != nil && *as[0].StatusCode == 200 && as[0].Attempt == 1
		})
	})
}

// A webhook may ask for a type of event that a plugin emits: it is
// delivered as the ledger's are, in its wallet's webhooks alone; a type
// that no plugin emits is refused. The plugin's route lists the types.
func TestPluginEventsAreDelivered(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 10_000), e.Wallet("bob", 0)
		m := &host.Manifest{Name: "tally", Version: "1.0.0", ABI: host.ABIVersion, Emits: []string{"tally.counted"}}
		p, err := e.Registry.RegisterBuiltin(m, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		types, err := k.call(user(alice), "GET", "/v1/me/webhooks/event-types", "", nil)
		if err != nil || !slices.Equal(types.(webhooks.EventTypes).EventTypes,
			[]string{"invoice.accepted", "invoice.cancelled", "invoice.settled", "onchain.deposit", "payment.failed", "payment.settled", "tally.counted"}) {
			t.Fatalf("the event types: %+v %v", types, err)
		}
		ra, rb := newReceiver(t, nil), newReceiver(t, nil)
		url := ra.URL
		if _, err := k.call(user(alice), "POST", "/v1/me/webhooks", "", &webhooks.CreateRequest{URL: &url,
			Events: []string{"tally.other"}}); !isFault(err, fault.Unprocessable) {
			t.Fatalf("a type no plugin emits: %v", err)
		}
		k.create(user(alice), ra.URL, "tally.counted")
		k.create(user(bob), rb.URL, "tally.counted", "invoice.settled")
		err = e.Registry.API().For(p).Tx(context.Background(), func(ctx context.Context, _ bun.Tx, emit host.Emitter) error {
			return emit(ctx, host.NewEvent{Type: "tally.counted", WalletID: alice.ID, SubjectID: "t1", Data: map[string]int{"n": 7}})
		})
		if err != nil {
			t.Fatal(err)
		}
		e.Eventually("the delivery", func() bool { return len(ra.all()) == 1 })
		if d := ra.all()[0]; d.Event.Type != "tally.counted" || d.Event.WalletID != alice.ID || string(d.Event.Data) != `{"n":7}` {
			t.Fatalf("delivery %s", d.Body)
		}
		pay(e, alice, bob, 1000) // a later event of bob's: his webhook's queue has moved past alice's
		e.Eventually("bob's delivery", func() bool { return len(rb.all()) == 1 })
		if d := rb.all()[0]; d.Event.Type != "invoice.settled" {
			t.Fatalf("bob got %s", d.Body)
		}
	})
}

// TestDeliveryDoesNotWaitTheOutboxsReadEvery pays twice, the second time
// once the first payment's delivery came, on an outbox whose consumers
// read again an hour after their last read at the soonest: the webhooks'
// consumer reads as soon as the head moves (its own Every), so the second
// delivery comes too.
func TestDeliveryDoesNotWaitTheOutboxsReadEvery(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true, OutboxReadEvery: time.Hour}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		r := newReceiver(t, nil)
		k.create(user(bob), r.URL, "invoice.settled")
		pay(e, alice, bob, 1_000)
		e.Eventually("the first delivery", func() bool { return len(r.all()) == 1 })
		pay(e, alice, bob, 2_000)
		e.Eventually("the second delivery", func() bool { return len(r.all()) == 2 })
	})
}

// A receiver that answers 500 for a while, then 200, gets every event
// in order: nothing is lost, nothing overtakes an event being retried.
func TestRetriesKeepOrder(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		r := newReceiver(t, func(n int, _ delivery) int {
			if n < 6 {
				return 500
			}
			return 200
		})
		w := k.create(user(alice), r.URL, "payment.settled")
		const payments = 5
		for range payments {
			pay(e, alice, bob, 1000)
		}
		var ok []int64
		e.Eventually("every event delivered", func() bool {
			ok = ok[:0]
			for i, d := range r.all() {
				if i >= 6 {
					ok = append(ok, d.Event.ID)
				}
			}
			return len(ok) >= payments
		})
		got := r.all()
		for i := 1; i < len(got); i++ {
			if got[i].Event.ID < got[i-1].Event.ID {
				t.Fatalf("out of order at %d: %v", i, ids(got))
			}
		}
		for i := range 7 { // the failures, and the first success, were all the first event
			if got[i].Event.ID != got[0].Event.ID {
				t.Fatalf("a later event overtook the first one being retried: %v", ids(got))
			}
		}
		if len(ok) != payments || !distinct(ok) {
			t.Fatalf("successful deliveries %v", ok)
		}
		e.Eventually("the attempts recorded", func() bool { return len(k.attempts(user(alice), w.ID)) == 6+payments })
		as := k.attempts(user(alice), w.ID)
		last := as[len(as)-1] // the oldest
		if last.Attempt != 1 || last.StatusCode == nil || *last.StatusCode != 500 || last.Error == nil || *last.Error != "HTTP 500" {
			t.Fatalf("first attempt %+v", last)
		}
	})
}

// The plugin stopped in the middle of its queue (a request in flight,
// events queued, more events written while it is down) and started again
// delivers every event, in order, each once in effect.
func TestRestartResumes(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		hold := make(chan struct{})
		r := newReceiver(t, func(n int, _ delivery) int {
			if n == 2 {
				<-hold // in flight when the plugin stops
				return 200
			}
			return 200
		})
		k.create(user(alice), r.URL, "payment.settled")
		var want []string
		for range 5 {
			want = append(want, pay(e, alice, bob, 1000))
		}
		e.Eventually("the third request in flight", func() bool { return len(r.all()) == 3 })
		k.stop()
		close(hold)
		for range 3 {
			want = append(want, pay(e, alice, bob, 1000))
		}
		k.start()
		var seen []int64
		e.Eventually("every event", func() bool {
			seen = seen[:0]
			for _, d := range r.all() {
				if len(seen) == 0 || seen[len(seen)-1] != d.Event.ID {
					seen = append(seen, d.Event.ID)
				}
			}
			return len(seen) >= len(want)
		})
		if !distinct(seen) || len(seen) != len(want) {
			t.Fatalf("events (deduplicated) %v, want %d", seen, len(want))
		}
		for i, d := range dedupe(r.all()) {
			var rec struct {
				ID string `json:"id"`
			}
			json.Unmarshal(d.Event.Data, &rec) //nolint:errcheck
			if rec.ID != want[i] {
				t.Fatalf("event %d is payment %s, want %s", i, rec.ID, want[i])
			}
		}
	})
}

// URLs that the guard would refuse are refused at registration, with 422
// and a reason; a redirect is never followed.
func TestURLsRefused(t *testing.T) {
	t.Parallel()
	e := plugintest.SQLite(t, plugintest.Options{NoRun: true, AllowPrivate: true})
	strict := newKit(t, e, fastRetries)
	alice := e.Wallet("alice", 0)
	for _, u := range []string{
		"http://203.0.113.7/hook",              // plain http
		"https://127.0.0.1:8443/hook",          // loopback
		"https://10.1.2.3/hook",                // private
		"https://[::1]/hook",                   // loopback v6
		"https://169.254.169.254/latest",       // link-local (cloud metadata)
		"https://localhost/hook",               // loopback by name
		"https://user:pw@hooks.example/x",      // credentials
		"ftp://hooks.example/x",                // scheme
		"https://hooks.example/x#frag",         // fragment
		"hooks.example/x",                      // not absolute
		"https://" + strings.Repeat("a", 3000), // too long
	} {
		_, err := strict.call(user(alice), "POST", "/v1/me/webhooks", "", &webhooks.CreateRequest{URL: &u, Events: []string{"payment.settled"}})
		if !isFault(err, fault.Unprocessable) {
			t.Errorf("%s: %v, want 422", u, err)
		}
	}
	cfg := fastRetries
	cfg.AllowPrivate = true
	loose := newKit(t, e, cfg)
	for _, u := range []string{"http://203.0.113.7/hook", "http://8.8.8.8/hook"} { // plain http to a public host
		_, err := loose.call(user(alice), "POST", "/v1/me/webhooks", "", &webhooks.CreateRequest{URL: &u, Events: []string{"payment.settled"}})
		if !isFault(err, fault.Unprocessable) || !strings.Contains(err.Error(), "public") {
			t.Errorf("%s with private hosts allowed: %v, want 422 (public)", u, err)
		}
	}
	u := "https://hooks.example/x"
	for _, evs := range [][]string{{"payment.settled", "nope"}, {}} {
		_, err := loose.call(user(alice), "POST", "/v1/me/webhooks", "", &webhooks.CreateRequest{URL: &u, Events: evs})
		if f, ok := fault.As(err); !ok || f.Code != "invalid_event_type" {
			t.Errorf("events %v: %v", evs, err)
		}
	}
}

// A receiver that redirects, even to another local receiver, is a failed
// attempt: the redirect is not followed.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	e := plugintest.SQLite(t, plugintest.Options{NoRun: true, AllowPrivate: true})
	cfg := fastRetries
	cfg.AllowPrivate = true
	cfg.FirstRetry, cfg.MaxBackoff = time.Hour, time.Hour
	k := newKit(t, e, cfg)
	alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
	inner := newReceiver(t, nil)
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(outer.Close)
	w := k.create(user(alice), outer.URL, "payment.settled")
	pay(e, alice, bob, 1000)
	e.Eventually("the attempt", func() bool { return len(k.attempts(user(alice), w.ID)) == 1 })
	a := k.attempts(user(alice), w.ID)[0]
	if a.StatusCode == nil || *a.StatusCode != 307 || a.Error == nil || !strings.Contains(*a.Error, "not followed") {
		t.Fatalf("attempt %+v", a)
	}
	if n := len(inner.all()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

// A name that resolves to a loopback address passes registration when
// private hosts are allowed, but the guard refuses to dial it when the
// server's outbound client does not allow them (DNS may change between
// registration and delivery).
func TestGuardChecksEveryDial(t *testing.T) {
	t.Parallel()
	e := plugintest.SQLite(t, plugintest.Options{NoRun: true})
	cfg := fastRetries
	cfg.FirstRetry, cfg.MaxBackoff = time.Hour, time.Hour
	cfg.AllowPrivate = true                               // registration believes in private hosts…
	k := &kit{t: t, e: e, cfg: cfg, strictOutbound: true} // …the outbound client does not
	k.start()
	t.Cleanup(func() { k.stop() })
	alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
	r := newReceiver(t, nil)
	w := k.create(user(alice), strings.Replace(r.URL, "127.0.0.1", "localhost", 1), "payment.settled")
	pay(e, alice, bob, 1000)
	e.Eventually("the attempt", func() bool { return len(k.attempts(user(alice), w.ID)) == 1 })
	a := k.attempts(user(alice), w.ID)[0]
	if a.StatusCode != nil || a.Error == nil || !strings.Contains(*a.Error, "loopback") || len(r.all()) != 0 {
		t.Fatalf("attempt %+v, %d requests", a, len(r.all()))
	}
}

// Another wallet's webhook is not found on /v1/me; the secret is shown in
// the create answer alone; a test event reaches the receiver.
func TestOwnershipAndSecret(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 0), e.Wallet("bob", 0)
		r := newReceiver(t, nil)
		w := k.create(user(alice), r.URL, "invoice.settled")
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/me/webhooks/{id}"}, {"DELETE", "/v1/me/webhooks/{id}"},
			{"GET", "/v1/me/webhooks/{id}/deliveries"}, {"POST", "/v1/me/webhooks/{id}/test"},
		} {
			if _, err := k.call(user(bob), c.method, c.path, w.ID, nil); !errors.Is(err, webhooks.ErrNotFound) {
				t.Errorf("bob %s %s: %v, want 404", c.method, c.path, err)
			}
		}
		list, err := k.call(user(bob), "GET", "/v1/me/webhooks", "", nil)
		if err != nil || len(list.(*host.Listed).Rows.([]*webhooks.Webhook)) != 0 {
			t.Fatalf("bob's list: %v %v", list, err)
		}
		for _, c := range []struct{ path, id string }{{"/v1/me/webhooks/{id}", w.ID}, {"/v1/me/webhooks", ""}, {"/v1/webhooks/{id}", w.ID}, {"/v1/webhooks", ""}} {
			got, err := k.call(user(alice), "GET", c.path, c.id, nil)
			b, _ := json.Marshal(got)
			if err != nil || strings.Contains(string(b), w.Secret) || strings.Contains(string(b), "secret") || !strings.Contains(string(b), w.ID) {
				t.Fatalf("GET %s: %s %v", c.path, b, err)
			}
		}
		if _, err := k.call(user(alice), "POST", "/v1/me/webhooks/{id}/test", w.ID, nil); err != nil {
			t.Fatal(err)
		}
		e.Eventually("the test event", func() bool { return len(r.all()) == 1 })
		d := r.all()[0]
		if d.Event.Type != webhooks.TestEvent || d.Event.ID >= 0 || webhooks.Verify(w.Secret, d.Header.Get(webhooks.SignatureHeader), d.Body, time.Now(), time.Minute) != nil {
			t.Fatalf("test delivery %s", d.Body)
		}
		if _, err := k.call(user(alice), "DELETE", "/v1/me/webhooks/{id}", w.ID, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := k.call(user(alice), "GET", "/v1/me/webhooks/{id}", w.ID, nil); !errors.Is(err, webhooks.ErrNotFound) {
			t.Fatalf("deleted webhook: %v", err)
		}
	})
}

func ids(ds []delivery) []int64 {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = d.Event.ID
	}
	return out
}

func distinct(ids []int64) bool {
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			return false
		}
		seen[id] = true
	}
	return true
}

// dedupe keeps the first delivery of each event id.
func dedupe(ds []delivery) []delivery {
	seen := map[int64]bool{}
	var out []delivery
	for _, d := range ds {
		if !seen[d.Event.ID] {
			seen[d.Event.ID] = true
			out = append(out, d)
		}
	}
	return out
}

// A webhook that fails for DisableAfter without a success is disabled,
// with a reason its owner reads; its queue stops.
func TestFailingWebhookIsDisabled(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		cfg.DisableAfter = 100 * time.Millisecond
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		r := newReceiver(t, func(int, delivery) int { return 503 })
		w := k.create(user(alice), r.URL, "payment.settled")
		pay(e, alice, bob, 1000)
		var got *webhooks.Webhook
		e.Eventually("the webhook disabled", func() bool {
			v, err := k.call(user(alice), "GET", "/v1/me/webhooks/{id}", w.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			got = v.(*webhooks.Webhook)
			return !got.Active
		})
		if got.DisabledReason == nil || !strings.Contains(*got.DisabledReason, "HTTP 503") {
			t.Fatalf("disabled: %+v", got)
		}
		n := len(r.all())
		if _, err := k.call(user(alice), "POST", "/v1/me/webhooks/{id}/test", w.ID, nil); !isFault(err, fault.Unprocessable) {
			t.Fatalf("test of a disabled webhook: %v", err)
		}
		pay(e, alice, bob, 1000)
		e.Eventually("the attempts recorded", func() bool { return len(k.attempts(user(alice), w.ID)) == n })
		if len(r.all()) != n {
			t.Fatalf("a disabled webhook got %d more requests", len(r.all())-n)
		}
	})
}

// Each webhook has a queue of its own: one whose receiver fails waits for
// its retry without delaying another's deliveries of the same events.
func TestQueuesAreIndependent(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{NoRun: true, AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		cfg := fastRetries
		cfg.AllowPrivate = true
		cfg.FirstRetry, cfg.MaxBackoff = time.Hour, time.Hour
		k := newKit(t, e, cfg)
		alice, bob := e.Wallet("alice", 100_000), e.Wallet("bob", 0)
		down := newReceiver(t, func(int, delivery) int { return 500 })
		up := newReceiver(t, nil)
		k.create(user(alice), down.URL, "payment.settled")
		k.create(user(alice), up.URL, "payment.settled")
		for range 5 {
			pay(e, alice, bob, 1000)
		}
		e.Eventually("the healthy receiver's events, the failing one's first", func() bool {
			return len(up.all()) == 5 && len(down.all()) >= 1
		})
		got := ids(up.all())
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("out of order: %v", got)
			}
		}
		if n := len(down.all()); n != 1 {
			t.Fatalf("the failing receiver got %d requests before its retry, want 1", n)
		}
	})
}
