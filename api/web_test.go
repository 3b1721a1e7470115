package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// The dashboard is served at / and /assets/, and never in place of a route
// of the API or its JSON errors.
func TestDashboardMount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	r := e.do("GET", "/", nil).expect(t, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("GET / Content-Type = %q", ct)
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("GET / CSP = %q", csp)
	}
	e.do("GET", "/assets/app.js", nil).expect(t, http.StatusOK)
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/nope"}, {"GET", "/assets/nope.js"}, {"GET", "/nope"}, {"POST", "/"}, {"DELETE", "/assets/app.js"},
	} {
		r := e.do(c.method, c.path, nil)
		r.expect(t, http.StatusNotFound)
		if p := r.problem(t); p.Code != "not_found" {
			t.Fatalf("%s %s: code %q", c.method, c.path, p.Code)
		}
	}
	e.do("GET", "/v1/system/setup", nil).expect(t, http.StatusOK)
	e.do("GET", "/docs", nil).expect(t, http.StatusOK)
}
