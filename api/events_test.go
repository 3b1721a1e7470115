package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// streamed is one server-sent event as a client reads it.
type streamed struct {
	id    int64
	event string
	body  struct {
		ID        int64           `json:"id"`
		Type      string          `json:"type"`
		CreatedAt time.Time       `json:"created_at"`
		WalletID  string          `json:"wallet_id"`
		Data      json.RawMessage `json:"data"`
	}
}

// openStream connects to path over HTTP and returns the events as they
// come; the connection closes when the test ends.
func openStream(t *testing.T, url string, headers ...string) <-chan streamed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan streamed, 64)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var e streamed
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), ": ")
			switch k {
			case "id":
				e.id, _ = strconv.ParseInt(v, 10, 64)
			case "event":
				e.event = v
			case "data":
				json.Unmarshal([]byte(v), &e.body) //nolint:errcheck // checked by the test
			case "":
				if e.event != "" {
					out <- e
				}
				e = streamed{}
			}
		}
	}()
	return out
}

func next(t *testing.T, ch <-chan streamed) streamed {
	t.Helper()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return streamed{}
}

// GET /v1/me/events streams the caller's events with their outbox ids and
// the record as the API shows it; it resumes after Last-Event-ID (or
// last_event_id); the admin's /v1/events streams every wallet's.
func TestEventStream(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{events: true}, nil)
		srv := httptest.NewServer(e.srv)
		t.Cleanup(srv.Close)
		alice, bob := e.user("alice"), e.user("bob")
		bobs := openStream(t, srv.URL+"/v1/me/events", bob.key...)
		all := openStream(t, srv.URL+"/v1/events", bearer(e.adminToken())...)
		alice.fund(t, 100_000)
		funded := next(t, all)
		if funded.event != "invoice.settled" || funded.body.WalletID != alice.id {
			t.Fatalf("admin stream: %+v", funded)
		}
		inv := bob.invoice(t, 40_000)
		alice.pay(inv.LnInvoice.Bolt11).expect(t, 201)
		got := next(t, bobs)
		var rec struct {
			ID        string `json:"id"`
			Status    string `json:"status"`
			LnInvoice struct {
				PaymentPreimage string `json:"payment_preimage"`
			} `json:"ln_invoice"`
		}
		if err := json.Unmarshal(got.body.Data, &rec); err != nil {
			t.Fatal(err)
		}
		if got.event != "invoice.settled" || got.id != got.body.ID || got.body.Type != got.event || got.body.WalletID != bob.id ||
			rec.ID != inv.ID || rec.Status != "Settled" || rec.LnInvoice.PaymentPreimage == "" || got.body.CreatedAt.IsZero() {
			t.Fatalf("bob's event = %+v, record %+v", got, rec)
		}
		for _, want := range []string{"invoice.settled", "payment.settled"} { // bob's, alice's
			if e := next(t, all); e.event != want || e.id <= funded.id {
				t.Fatalf("admin stream: %+v, want %s", e, want)
			}
		}

		// Bob comes back after the next payment.
		inv2 := bob.invoice(t, 1000)
		alice.pay(inv2.LnInvoice.Bolt11).expect(t, 201)
		resumed := openStream(t, srv.URL+"/v1/me/events", append([]string{"Last-Event-ID", strconv.FormatInt(got.id, 10)}, bob.key...)...)
		if e := next(t, resumed); e.event != "invoice.settled" || e.id <= got.id {
			t.Fatalf("resumed: %+v", e)
		}
		byQuery := openStream(t, srv.URL+"/v1/events?wallet_id="+bob.id+"&last_event_id="+strconv.FormatInt(got.id, 10), bearer(e.adminToken())...)
		if e := next(t, byQuery); e.event != "invoice.settled" || e.body.WalletID != bob.id || e.id <= got.id {
			t.Fatalf("resumed by the admin: %+v", e)
		}
	})
}

// Bad input gets a JSON 4xx: a Last-Event-ID that is no id, a key
// without read:transaction, a user on the admin's stream.
func TestEventStreamRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{events: true}, nil)
		bob := e.user("bob")
		for _, bad := range []string{"abc", "-1", "1e3", "99999999999999999999"} {
			r := e.do("GET", "/v1/me/events", nil, append([]string{"Last-Event-ID", bad}, bob.key...)...).expect(t, 400)
			r.problem(t)
		}
		e.do("GET", "/v1/me/events?last_event_id=x", nil, bob.key...).expect(t, 400).problem(t)
		weak := apiKey(e.makeKey("carol", auth.NewScopes(auth.ReadWallet)))
		e.do("GET", "/v1/me/events", nil, weak...).expect(t, 403).problem(t)
		e.do("GET", "/v1/events", nil, bob.key...).expect(t, 403).problem(t)
		e.do("GET", "/v1/events?wallet_id=nope", nil, bearer(e.adminToken())...).expect(t, 400).problem(t)
	})
}
