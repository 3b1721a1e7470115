package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/host"
)

func TestOutboundRechecksRedirectsAndCapsResponses(t *testing.T) {
	t.Parallel()
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, target, http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 2000)))
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	other := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	target = other + "/ok"
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true, MaxResponseBytes: 1000})
	only127 := func(h string) bool { return h == "127.0.0.1" }
	ctx := context.Background()
	for _, tc := range []struct {
		name, url, err string
		allowed        func(string) bool
	}{
		{"allowed", srv.URL + "/ok", "", only127},
		{"redirect to an ungranted host", srv.URL + "/redirect", "redirect refused", only127},
		{"ungranted host", other + "/ok", "not granted", only127},
		{"response too large", srv.URL + "/big", "larger than 1000", only127},
		{"other scheme", "file:///etc/passwd", "scheme", nil},
		{"credentials in URL", "http://u:p@127.0.0.1/", "credentials", nil},
	} {
		resp, err := out.Do(ctx, tc.allowed, host.OutboundRequest{URL: tc.url})
		if tc.err == "" {
			if err != nil || string(resp.Body) != "ok" {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		}
	}
	strict := host.NewOutbound(host.OutboundConfig{})
	if _, err := strict.Do(ctx, only127, host.OutboundRequest{URL: srv.URL + "/ok"}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("loopback reached without the test switch: %v", err)
	}
}

// NoRedirects answers a redirect as it is; PlainPrivateOnly lets plain
// http reach private addresses only, checked at the dial.
func TestOutboundBuiltinOptions(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true})
	ctx := context.Background()
	resp, err := out.Do(ctx, nil, host.OutboundRequest{URL: srv.URL + "/redirect", NoRedirects: true})
	if err != nil || resp.Status != http.StatusTemporaryRedirect || resp.Headers["Location"] != "/ok" {
		t.Fatalf("no redirects: %+v %v", resp, err)
	}
	resp, err = out.Do(ctx, nil, host.OutboundRequest{URL: srv.URL + "/ok", PlainPrivateOnly: true})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("plain http to loopback: %+v %v", resp, err)
	}
	_, err = out.Do(ctx, nil, host.OutboundRequest{URL: "http://203.0.113.9:9/", PlainPrivateOnly: true})
	if err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Fatalf("plain http to a public address: %v", err)
	}
}
