package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConnPay: a payment is POST /v1/me/payments with the key and the
// invoice; 201 with a settled payment is success, anything else an error
// that says what came back; and the connection is kept across payments.
func TestConnPay(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/v1/me/payments" || r.Header.Get("Api-Key") != "key-1" ||
			r.Header.Get("Content-Type") != "application/json":
			http.Error(w, fmt.Sprintf("unexpected %s %s", r.Method, r.URL), http.StatusBadRequest)
		case string(body) == `{"input":"lnbc-settled"}`:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"p1","status":"Settled"}`)
		case string(body) == `{"input":"lnbc-pending"}`:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"p2","status":"Pending"}`)
		default:
			http.Error(w, `{"error":"insufficient balance"}`, http.StatusPaymentRequired)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c, err := Dial(host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if err := c.Pay(host, "key-1", "lnbc-settled"); err != nil {
			t.Fatalf("a settled payment: %v", err)
		}
	}
	if err := c.Pay(host, "key-1", "lnbc-pending"); err == nil || !strings.Contains(err.Error(), "not settled") {
		t.Errorf("a pending payment: %v, want not settled", err)
	}
	if err := c.Pay(host, "key-1", "lnbc-poor"); err == nil || !strings.Contains(err.Error(), "= 402") || !strings.Contains(err.Error(), "insufficient") {
		t.Errorf("a refused payment: %v, want its status and body", err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 5 payments, want 1 kept alive", n)
	}
}

// TestReadStream hands each line of the stream to its reader, with the
// credential sent, and refuses a stream that does not open.
func TestReadStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "id: 1\ndata: {}\n\nid: 2\n")
	}))
	defer srv.Close()
	lines := make(chan string, 8)
	if err := ReadStream(context.Background(), srv.URL, "Bearer t", func(l []byte) { lines <- string(l) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 4 {
		select {
		case l := <-lines:
			got = append(got, l)
		case <-time.After(5 * time.Second):
			t.Fatalf("lines read: %q", got)
		}
	}
	if strings.Join(got, "|") != "id: 1|data: {}||id: 2" {
		t.Errorf("lines %q", got)
	}
	err := ReadStream(context.Background(), srv.URL, "Bearer wrong", func([]byte) {})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a refused stream: %v, want its status", err)
	}
}
