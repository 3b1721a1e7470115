package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// CSP is the Content-Security-Policy of every dashboard answer: scripts,
// styles and images from this origin only, requests to this origin only,
// no inline script or style, no plugins, no framing, no <base>.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// Policy is CSP for an instance whose dashboard signs in at an OpenID
// Connect provider: with provider the provider's origin (scheme://host[:port],
// as Origin returns it), the page may also fetch from it (the discovery
// document and the token endpoint) and send a form to it (the
// authorization request), and nothing else more. An empty provider is CSP.
func Policy(provider string) string {
	if provider == "" {
		return CSP
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self' " + provider + "; font-src 'self'; manifest-src 'self'; base-uri 'none'; " +
		"form-action 'self' " + provider + "; frame-ancestors 'none'"
}

// Origin returns the origin of an issuer URL, scheme://host[:port], lower
// case, for Policy; "" when the URL is not http(s) with a host, or holds
// anything that would not be one source of a policy.
func Origin(issuer string) string {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return ""
	}
	host := strings.ToLower(u.Host)
	if strings.ContainsAny(host, " ;,'\"*\t\r\n") {
		return ""
	}
	return u.Scheme + "://" + host
}

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the dashboard: the page at / and its files under
// /assets/, for GET and HEAD. Has says which paths are the dashboard's.
type Handler struct {
	files map[string]file // by URL path
	csp   string          // the Content-Security-Policy of its answers
}

// New returns the dashboard's handler over the embedded files.
func New() *Handler {
	h := &Handler{files: map[string]file{}, csp: CSP}
	root, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) { // not left to the machine's mime tables
		case ".js", ".mjs":
			ct = "text/javascript; charset=utf-8"
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".html":
			ct = "text/html; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		url := "/" + p
		if p == "index.html" {
			url = "/"
		}
		h.files[url] = file{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		panic(err)
	}
	h.files[AppsNew] = h.files["/"]
	return h
}

// AppsNew is the authorization page's path, where apps ask to connect
// over Nostr Wallet Connect (@getalby/sdk's getAuthorizationUrl names it:
// it takes no hash route). The dashboard's page, served with an opener
// policy that keeps the app's window as its opener, which it answers.
const AppsNew = "/apps/new"

// WithOIDC returns the handler with the policy of an instance whose
// dashboard signs in at the OpenID Connect provider of issuer (Policy),
// sharing its files; an empty issuer keeps CSP.
func (h *Handler) WithOIDC(issuer string) *Handler {
	c := *h
	c.csp = Policy(Origin(issuer))
	return &c
}

// Has reports whether path is a file of the dashboard: /, AppsNew or one
// under /assets/. The API's own paths (/v1/…, /.well-known/…, /docs) never are.
func (h *Handler) Has(path string) bool {
	_, ok := h.files[path]
	return ok
}

// SecurityHeaders sets the headers every dashboard answer carries, with
// the default policy, CSP.
func SecurityHeaders(h http.Header) { securityHeaders(h, CSP) }

func securityHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}

// ServeHTTP serves one file of the dashboard, or a plain 404 or 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header(), h.csp)
	if r.URL.Path == AppsNew {
		// An app on another origin opened the page and waits for its
		// answer (postMessage): same-origin would cut the page off from it.
		w.Header().Set("Cross-Origin-Opener-Policy", "unsafe-none")
	}
	f, ok := h.files[r.URL.Path]
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", f.contentType)
	// Revalidated on every load, so an upgrade is seen at once; the ETag
	// makes that cheap.
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", f.etag)
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(f.body) //nolint:errcheck // the client left
	}
}

var _ http.Handler = (*Handler)(nil)
