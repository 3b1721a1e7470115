package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/web"
)

func TestServesPageAndAssets(t *testing.T) {
	t.Parallel()
	h := web.New()
	cases := []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<script type="module" src="/assets/app.js">`},
		{"/apps/new", "text/html; charset=utf-8", `<script type="module" src="/assets/app.js">`},
		{"/assets/app.js", "text/javascript; charset=utf-8", "followEvents"},
		{"/assets/style.css", "text/css; charset=utf-8", ".card"},
		{"/assets/vendor/qrcode-generator-2.0.4.mjs", "text/javascript; charset=utf-8", "Kazuhiko Arase"},
		{"/assets/icon.svg", "image/svg+xml", "<svg"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s = %d", c.path, rec.Code)
			}
			if got := rec.Header().Get("Content-Type"); got != c.contentType {
				t.Errorf("Content-Type = %q, want %q", got, c.contentType)
			}
			if !strings.Contains(rec.Body.String(), c.contains) {
				t.Errorf("GET %s lacks %q", c.path, c.contains)
			}
			checkSecurityHeaders(t, rec.Header())
			// The page apps open keeps them as its opener; the others cut
			// every other origin's window off.
			coop := "same-origin"
			if c.path == "/apps/new" {
				coop = "unsafe-none"
			}
			if got := rec.Header().Get("Cross-Origin-Opener-Policy"); got != coop {
				t.Errorf("Cross-Origin-Opener-Policy = %q, want %q", got, coop)
			}
			etag := rec.Header().Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			req := httptest.NewRequest("GET", c.path, nil)
			req.Header.Set("If-None-Match", etag)
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
				t.Fatalf("revalidation = %d with %d bytes, want 304 and none", rec.Code, rec.Body.Len())
			}
		})
	}
}

func checkSecurityHeaders(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") || strings.Contains(csp, "http") {
		t.Errorf("CSP %q allows inline code or another host", csp)
	}
	for name, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

func TestUnknownAndWrongMethod(t *testing.T) {
	t.Parallel()
	h := web.New()
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/assets/nope.js", http.StatusNotFound},
		{"GET", "/index.html", http.StatusNotFound},
		{"POST", "/", http.StatusMethodNotAllowed},
		{"HEAD", "/", http.StatusOK},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.want {
			t.Errorf("%s %s = %d, want %d", c.method, c.path, rec.Code, c.want)
		}
		if c.method == "HEAD" && rec.Body.Len() != 0 {
			t.Errorf("HEAD answered a body")
		}
		checkSecurityHeaders(t, rec.Header())
	}
}

func TestHas(t *testing.T) {
	t.Parallel()
	h := web.New()
	for path, want := range map[string]bool{
		"/": true, "/apps/new": true, "/assets/app.js": true, "/apps/new/": false, "/apps": false, "/assets/views/send.js": true,
		"/assets/nope.js": false, "/index.html": false, "/assets/": false,
		"/v1/me": false, "/docs": false, "/.well-known/lnurlp/a": false, "/v1/openapi.json": false, "/favicon.ico": false,
	} {
		if got := h.Has(path); got != want {
			t.Errorf("Has(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestNoInlineCode checks the page itself: no inline script or style,
// nothing from another host. (The browser test checks what it loads.)
func TestNoInlineCode(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	web.New().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	page := rec.Body.String()
	for _, bad := range []string{"<style", "style=", "onload=", "onclick=", "javascript:", "//cdn", "https://", "http://"} {
		if strings.Contains(page, bad) {
			t.Errorf("index.html contains %q", bad)
		}
	}
	if strings.Count(page, "<script") != strings.Count(page, `<script type="module" src="/assets/`) {
		t.Error("index.html has a script that is not a module of /assets/")
	}
}

// The policy of an OIDC instance adds the provider's origin to connect-src
// and form-action, and only there; an issuer that is no plain http(s) URL
// adds nothing.
func TestPolicyOfOIDC(t *testing.T) {
	t.Parallel()
	for issuer, want := range map[string]string{
		"https://ID.example.com/realms/hearth": "https://id.example.com",
		"http://127.0.0.1:5556/dex":            "http://127.0.0.1:5556",
		"https://a.example.com:8443":           "https://a.example.com:8443",
		"":                                     "",
		"id.example.com":                       "",
		"javascript:alert(1)":                  "",
		"https://u:p@id.example.com":           "",
		"https://*.example.com":                "",
	} {
		if got := web.Origin(issuer); got != want {
			t.Errorf("Origin(%q) = %q, want %q", issuer, got, want)
		}
	}
	if web.Policy("") != web.CSP {
		t.Error("Policy without a provider is not CSP")
	}
	p := web.Policy("https://id.example.com")
	if strings.Replace(strings.Replace(p, "connect-src 'self' https://id.example.com;", "connect-src 'self';", 1),
		"form-action 'self' https://id.example.com;", "form-action 'self';", 1) != web.CSP {
		t.Errorf("Policy = %q: more than connect-src and form-action changed", p)
	}
}
