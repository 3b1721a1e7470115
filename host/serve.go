package host

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// PluginRequest is an HTTP request to a plugin route, as the plugin gets it.
type PluginRequest struct {
	Method string `json:"method"`
	// Path is the part after /v1/plugins/{name}, starting with "/".
	Path    string            `json:"path"`
	Query   string            `json:"query,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	// Caller is who called an authenticated route; nil on a public one.
	// A hearth_v1 plugin is never sent it.
	Caller *PluginCaller `json:"caller,omitempty"`
}

// PluginCaller is the caller of a plugin's authenticated route as the
// plugin sees it.
type PluginCaller struct {
	UserID   string   `json:"user_id"`
	WalletID string   `json:"wallet_id"`
	Scopes   []string `json:"scopes"`
	Admin    bool     `json:"admin,omitempty"`

	principal *Principal
}

// CallerOf is what a plugin is told of p, the route's caller.
func CallerOf(p *Principal) *PluginCaller {
	return &PluginCaller{UserID: p.UserID, WalletID: p.WalletID, Scopes: p.Scopes.Names(), Admin: p.Admin, principal: p}
}

// callerKey holds, in the context of a plugin's route call, the caller its
// host calls act for (caller:act).
type callerKey struct{}

// actingFor is the caller a host call made under ctx acts for, or nil.
func actingFor(ctx context.Context) *Principal {
	p, _ := ctx.Value(callerKey{}).(*Principal)
	return p
}

// PluginResponse is the plugin's answer.
type PluginResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// ForwardedHeaders are the request headers a plugin sees; credentials
// (Authorization, Api-Key, Cookie) never reach it.
var ForwardedHeaders = []string{"Accept", "Content-Type", "User-Agent", "Idempotency-Key", "X-Request-Id"}

// Serve runs plugin name's HTTP handler on req. An answer that is not a
// valid response is a fault.
func (r *Registry) Serve(ctx context.Context, name string, req PluginRequest) (*PluginResponse, error) {
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	run, ok := p.running()
	if !ok {
		return nil, ErrUnavailable.Reasonf("Plugin %s is %s", name, p.State())
	}
	switch {
	case req.Caller == nil:
	case p.Manifest.ABI == ABIv1:
		req.Caller = nil // the first ABI's plugins never learnt of it
	case p.Grant().Has(CallerAct) && req.Caller.principal != nil:
		ctx = context.WithValue(ctx, callerKey{}, req.Caller.principal)
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	out, err := run.HTTP(ctx, payload)
	var resp PluginResponse
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		switch derr := dec.Decode(&resp); {
		case derr != nil:
			err = Faultf("undecodable HTTP answer: %v", derr)
		case resp.Error != "":
			err = &CallError{Code: "plugin_error", Message: resp.Error}
		case resp.Status < 100 || resp.Status > 599:
			err = Faultf("HTTP answer with status %d", resp.Status)
		}
	}
	r.outcome(ctx, p, err)
	if err != nil {
		return nil, err
	}
	return &resp, nil
}

// safeResponseHeaders are the headers a plugin may set on its answer.
var safeResponseHeaders = map[string]bool{
	"Content-Type": true, "Cache-Control": true, "Location": true, "Etag": true, "Last-Modified": true,
	"Access-Control-Allow-Origin": true, "Link": true,
}

// PageCSP is the Content-Security-Policy of every answer of a plugin's
// routes. A page a plugin serves (a point of sale, a tip jar) may load its
// own scripts, styles, images and fonts from the server and call it, and
// nothing else: no inline script, no other origin. It runs sandboxed, in
// an origin of its own (sandbox without allow-same-origin), so that it
// cannot read what the dashboard keeps in the server's origin (a session's
// token) nor call the API with the dashboard's credentials: its calls to
// its plugin's public routes are cross-origin, answered when the plugin
// allows any origin (Access-Control-Allow-Origin: *).
const PageCSP = "sandbox allow-scripts allow-forms allow-popups; default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// WriteTo writes the plugin's response under PageCSP; headers outside a
// safe set (no cookies, no security policy overrides) are dropped.
func (resp *PluginResponse) WriteTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range resp.Headers {
		if safeResponseHeaders[http.CanonicalHeaderKey(k)] {
			h.Set(k, v)
		}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/octet-stream")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", PageCSP)
	w.WriteHeader(resp.Status)
	w.Write(resp.Body) //nolint:errcheck // the client may be gone
}
