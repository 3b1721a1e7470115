package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// hookReceiver is a webhook endpoint run by the test: it verifies every
// delivery's signature and keeps each event id once, as a receiver
// should; fail makes it answer 500.
type hookReceiver struct {
	*httptest.Server
	t      *testing.T
	secret atomic.Pointer[string]
	fail   atomic.Bool

	mu      sync.Mutex
	ids     []int64       // each event once, in the order first delivered
	times   map[int64]int // deliveries answered 200, by event id
	bad     int           // deliveries whose signature failed
	changed chan struct{}
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{t: t, times: map[int64]int{}, changed: make(chan struct{}, 1)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if r.fail.Load() {
			w.WriteHeader(500)
			return
		}
		var ev struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
		}
		secret := r.secret.Load()
		r.mu.Lock()
		defer r.mu.Unlock()
		if secret == nil || webhooks.Verify(*secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute) != nil ||
			json.Unmarshal(body, &ev) != nil {
			r.bad++
			w.WriteHeader(400)
			return
		}
		if r.times[ev.ID] == 0 {
			r.ids = append(r.ids, ev.ID)
		}
		r.times[ev.ID]++
		select {
		case r.changed <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(r.Close)
	return r
}

// waitIDs waits until n events arrived, and returns their ids.
func (r *hookReceiver) waitIDs(n int) []int64 {
	r.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		r.mu.Lock()
		ids, bad := append([]int64(nil), r.ids...), r.bad
		r.mu.Unlock()
		if bad > 0 {
			r.t.Fatalf("%d deliveries failed verification", bad)
		}
		if len(ids) >= n {
			return ids
		}
		select {
		case <-r.changed:
		case <-deadline:
			r.t.Fatalf("the receiver got %v, want %d events", ids, n)
		}
	}
}

// callKey is client.call with an API key.
func callKey(c *client, method, path, body, key string) reply {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Api-Key", key)
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{method: method, path: path, code: res.StatusCode, header: res.Header, body: b}
}

var webhookEnv = []string{"HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true", "HEARTH_WEBHOOKS_FIRST_RETRY=20ms"}

// The webhooks of a real server: scopes and ownership over HTTP, the
// secret shown once, signed deliveries of settlements; then the server
// killed (SIGKILL) with deliveries queued and failing, and started
// again: every event arrives, in order, none lost.
func TestWebhooksSurviveAKill(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		environ = append(environ, webhookEnv...)
		first, c := serveProcess(t, environ)
		token := signUp(t, c)
		bobWallet := createWallet(t, c, token, "bob")
		var key struct{ Key string }
		c.decode(c.expect(c.call("POST", "/v1/api-keys", `{"user_id":"bob","name":"bob","permissions":["read:wallet","write:wallet"]}`, token), 201), &key)

		r := newHookReceiver(t)
		created := c.expect(c.call("POST", "/v1/me/webhooks", fmt.Sprintf(`{"url":%q,"events":["invoice.settled"]}`, r.URL+"/hearth"), token), 201)
		var hook struct {
			ID     string `json:"id"`
			Secret string `json:"secret"`
		}
		c.decode(created, &hook)
		if !strings.HasPrefix(hook.Secret, "whsec_") {
			t.Fatalf("created %s", created.body)
		}
		r.secret.Store(&hook.Secret)
		for _, path := range []string{"/v1/me/webhooks", "/v1/me/webhooks/" + hook.ID, "/v1/webhooks", "/v1/webhooks/" + hook.ID} {
			if b := c.expect(c.call("GET", path, "", token), 200).body; strings.Contains(string(b), hook.Secret) || strings.Contains(string(b), `"secret"`) {
				t.Fatalf("GET %s shows the secret: %s", path, b)
			}
		}
		c.expect(callKey(c, "GET", "/v1/me/webhooks/"+hook.ID, "", key.Key), 404)
		c.expect(callKey(c, "DELETE", "/v1/me/webhooks/"+hook.ID, "", key.Key), 404)
		c.expect(callKey(c, "GET", "/v1/webhooks", "", key.Key), 403)
		c.expect(callKey(c, "POST", "/v1/me/webhooks", `{"url":"http://203.0.113.1/x","events":["invoice.settled"]}`, key.Key), 422)
		c.expect(callKey(c, "POST", "/v1/me/webhooks", `{"url":"https://hooks.example/x","events":["nope"]}`, key.Key), 422)
		c.expect(callKey(c, "POST", "/v1/me/webhooks", `{"url":`, key.Key), 400)
		var other struct{ ID string }
		c.decode(c.expect(c.call("POST", "/v1/webhooks", fmt.Sprintf(`{"wallet_id":%q,"url":%q,"events":["payment.failed"]}`, bobWallet, r.URL+"/bob"), token), 201), &other)
		c.expect(callKey(c, "GET", "/v1/me/webhooks/"+other.ID, "", key.Key), 200)
		c.expect(c.call("POST", "/v1/webhooks", fmt.Sprintf(`{"wallet_id":%q,"url":%q,"events":["payment.failed"]}`, "8c0ff4a4-5f4e-4f5e-9d4e-2b7f9a1e0c11", r.URL), token), 404)
		c.expect(c.call("DELETE", "/v1/webhooks/"+other.ID, "", token), 204)
		c.expect(callKey(c, "GET", "/v1/me/webhooks/"+other.ID, "", key.Key), 404)

		docBody := c.expect(c.call("GET", "/v1/openapi.json", "", ""), 200).body
		var doc struct {
			Paths map[string]map[string]map[string]any `json:"paths"`
		}
		c.decode(reply{body: docBody}, &doc)
		if doc.Paths["/v1/me/webhooks"]["post"]["x-required-scope"] != "write:wallet" || doc.Paths["/v1/webhooks/{id}"]["delete"]["x-admin-only"] != true {
			t.Fatalf("webhooks in the OpenAPI document: %v", doc.Paths["/v1/me/webhooks"])
		}
		loaded, err := openapi3.NewLoader().LoadFromData(docBody)
		if err != nil {
			t.Fatal(err)
		}
		if err := loaded.Validate(context.Background()); err != nil {
			t.Fatalf("the document with the webhooks is not valid OpenAPI 3: %v", err)
		}

		fundAdmin(c, token)
		before := r.waitIDs(1)
		r.fail.Store(true) // queued and retried from now on
		for range 3 {
			fundAdmin(c, token)
		}
		first.kill()

		_, c2 := serveProcess(t, environ)
		r.fail.Store(false)
		fundAdmin(c2, token)
		ids := r.waitIDs(5)
		if ids[0] != before[0] {
			t.Fatalf("ids %v", ids)
		}
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				t.Fatalf("events out of order: %v", ids)
			}
		}
		// The receiver has its answer before the attempt is recorded: wait
		// for the record.
		poll.Until(t, 30*time.Second, func() error {
			var attempts []struct {
				EventID int64 `json:"event_id"`
				Status  *int  `json:"status_code"`
			}
			c2.decode(c2.expect(c2.call("GET", "/v1/me/webhooks/"+hook.ID+"/deliveries", "", token), 200), &attempts)
			if len(attempts) < 5 {
				return fmt.Errorf("%d attempts recorded, want at least 5", len(attempts))
			}
			return nil
		})
	})
}

// Two replicas on one PostgreSQL: each event is delivered once per
// webhook (one replica leads the delivery), whichever replica took the
// payment; the delivery goes on when the leader dies.
func TestWebhooksTwoReplicas(t *testing.T) {
	t.Parallel()
	environ := append([]string{"HEARTH_DATABASE_URL=" + storetest.EmptySchemaURL(t)}, webhookEnv...)
	a, ca := serveProcess(t, append([]string{"HEARTH_DATA_DIR=" + t.TempDir()}, environ...))
	token := signUp(t, ca)
	_, cb := serveProcess(t, append([]string{"HEARTH_DATA_DIR=" + t.TempDir()}, environ...))
	r := newHookReceiver(t)
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	ca.decode(ca.expect(ca.call("POST", "/v1/me/webhooks", fmt.Sprintf(`{"url":%q,"events":["invoice.settled"]}`, r.URL), token), 201), &hook)
	r.secret.Store(&hook.Secret)
	for i := range 6 {
		fundAdmin([]*client{ca, cb}[i%2], token)
	}
	r.waitIDs(6)
	// Recorded as delivered, so that a new leader does not send them again;
	// then the first replica dies, the leader or not: the other delivers.
	waitAttempts(t, cb, token, hook.ID, 6)
	a.kill()
	for range 2 {
		fundAdmin(cb, token)
	}
	r.waitIDs(8)
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, n := range r.times {
		if n != 1 {
			t.Errorf("event %d delivered %d times", id, n)
		}
	}
}

// waitAttempts waits until webhook id shows n attempts.
func waitAttempts(t *testing.T, c *client, token, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var as []json.RawMessage
		c.decode(c.expect(c.call("GET", "/v1/me/webhooks/"+id+"/deliveries", "", token), 200), &as)
		if len(as) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d attempts, want %d", len(as), n)
		}
		<-tick.C
	}
}
