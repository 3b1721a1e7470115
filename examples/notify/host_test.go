//go:build !wasip1

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/plugintest"
)

// topic is an ntfy-style receiver that is down for its first request.
type topic struct {
	mu       sync.Mutex
	requests int
	got      []string // title: body
}

func (tp *topic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.requests++
	if tp.requests == 1 {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	tp.got = append(tp.got, r.Header.Get("Title")+": "+string(body))
}

func (tp *topic) received() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.got...)
}

// TestInTheHost builds the plugin for wasip1 and runs it in a real host,
// on both databases: a payment received reaches the topic once, through
// the host's durable sender, after the topic was down for the first
// attempt; the summary timer, made due, sends the day before's summary.
func TestInTheHost(t *testing.T) {
	wasm := plugintest.Build(t, ".")
	plugintest.Each(t, plugintest.Options{AllowPrivate: true, SendRetry: 50 * time.Millisecond}, func(t *testing.T, e *plugintest.Env) {
		tp := &topic{}
		srv := httptest.NewServer(tp)
		defer srv.Close()
		alice := e.Wallet("alice", 0)
		e.Install(wasm, manifestFor(t, "http:outbound:127.0.0.1"))
		cfg, _ := json.Marshal(map[string]any{"url": srv.URL + "/wallet"})
		e.Configure("notify", cfg)
		e.Enable("notify", alice.ID, "read:transaction", "http:outbound:127.0.0.1")
		e.Wallet("alice", 21_000) // an invoice into alice's wallet, paid from outside

		e.Eventually("the notification", func() bool { return len(tp.received()) == 1 })
		if got := tp.received()[0]; got != "Received 21 sat: no description" {
			t.Fatalf("the topic got %q", got)
		}

		e.DueNow("notify", "summary")
		yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
		e.Eventually("the summary", func() bool { return len(tp.received()) == 2 })
		if got := tp.received()[1]; !strings.HasPrefix(got, "Summary of "+yesterday+": Received 0 sat") {
			t.Fatalf("the summary: %q", got)
		}
	})
}

// manifestFor is manifest.json with the outbound scope of the test server.
func manifestFor(t *testing.T, outbound string) []byte {
	b, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["scopes"] = []string{"read:transaction", outbound}
	out, _ := json.Marshal(m)
	return out
}
