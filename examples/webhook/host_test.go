//go:build !wasip1

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestInTheHost builds the plugin for wasip1 and runs it in a real host:
// a settled invoice reaches the receiver, signed, after one failed attempt.
func TestInTheHost(t *testing.T) {
	var mu sync.Mutex
	attempts := 0
	delivered := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		attempts++
		n := attempts
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		if r.Header.Get("X-Hearth-Signature") != Sign("s3cret", body) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		delivered <- body
	}))
	defer srv.Close()

	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	alice := e.Wallet("alice", 0)
	e.Install(plugintest.Build(t, "."), manifestFor(t, "http:outbound:127.0.0.1"))
	cfg, _ := json.Marshal(map[string]any{"url": srv.URL + "/hook", "secret": "s3cret"})
	e.Configure("webhook", cfg)
	e.Enable("webhook", alice.ID, "read:transaction", "http:outbound:127.0.0.1")
	e.Wallet("alice", 21_000) // an invoice into alice's wallet, paid from outside

	body := <-delivered
	var d struct {
		Event   string `json:"event"`
		Invoice struct {
			AmountReceivedMsat int64 `json:"amount_received_msat"`
		} `json:"invoice"`
	}
	if err := json.Unmarshal(body, &d); err != nil || d.Event != "invoice.settled" || d.Invoice.AmountReceivedMsat != 21_000 {
		t.Fatalf("delivery %s: %v", body, err)
	}
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
