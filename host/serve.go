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
	"Access-Control-Allow-Origin": true,
}

// WriteTo writes the plugin's response; headers outside a safe set (no
// cookies, no security policy overrides) are dropped.
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
	w.WriteHeader(resp.Status)
	w.Write(resp.Body) //nolint:errcheck // the client may be gone
}
