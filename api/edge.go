package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"

	"github.com/hearthwallet/hearth/core/fault"
)

// The edge: what every request passes before the router sees it.

var (
	errBadPath  = fault.New(fault.Invalid, "invalid_path", "Invalid path: NUL, control characters and invalid UTF-8 are not allowed")
	errBadQuery = fault.New(fault.Invalid, "invalid_query", "Invalid query string")
)

// checkEdge refuses what no route may receive: a path or query string that
// is not text (the router itself panics on a NUL in a path), a malformed
// query string, and a body whose declared length is over the limit
// (answered before any "100 Continue", so the client never sends it).
func checkEdge(r *http.Request, limit int64) error {
	if badPathText(r.URL.Path) { // decoded: %00 is a NUL here
		return errBadPath
	}
	if dotSegment(r.URL.Path) {
		// The router would clean it and serve another route than the
		// one asked for.
		return errBadPath.Reasonf("Invalid path: dot segments (. and ..) are not allowed")
	}
	if r.URL.RawQuery != "" {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return errBadQuery.Reasonf("Invalid query string: malformed escape or separator")
		}
		for k, vs := range q {
			if badPathText(k) {
				return errBadQuery.Reasonf("Invalid query string: NUL, control characters and invalid UTF-8 are not allowed")
			}
			for _, v := range vs {
				if badPathText(v) {
					return errBadQuery.Reasonf("Invalid query parameter %s: NUL, control characters and invalid UTF-8 are not allowed", k)
				}
			}
		}
	}
	if r.ContentLength > limit {
		return errBodyTooLarge
	}
	return nil
}

// dotSegment reports whether the path has a segment "." or "..".
func dotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// bodyLimit is the largest body a request may send to its path.
func (s *Server) bodyLimit(r *http.Request) int64 {
	limit := s.cfg.HTTP.MaxBodyBytes
	if r.Method == http.MethodPost && r.URL.Path == "/v1/plugins" {
		// A plugin upload: the module, base64, and its manifest.
		limit = max(limit, s.cfg.Plugins.MaxWasmBytes/3*4+1<<20)
	} else if strings.HasPrefix(r.URL.Path, "/v1/plugins/") {
		limit = max(limit, maxPluginBody)
	}
	return limit
}

// recovered turns a panic in a handler into a JSON 500: one log line with
// the request id (the stack only at debug level), and the error body when
// nothing was written yet. http.ErrAbortHandler goes on up, as net/http
// means it to.
func (s *Server) recovered(w *statusRecorder, r *http.Request, id string) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	ctx := r.Context()
	attrs := []any{"method", r.Method, "path", r.URL.Path, "request_id", id, "panic", fmt.Sprint(v)}
	if s.log.Enabled(ctx, slog.LevelDebug) {
		attrs = append(attrs, "stack", string(debug.Stack()))
	}
	s.log.ErrorContext(ctx, "request panicked", attrs...)
	if !w.wrote {
		writeJSON(w, http.StatusInternalServerError, Problem{
			Status: "500 Internal Server Error",
			Reason: "Internal server error (request " + id + ")",
			Code:   errInternal.Code,
		})
	}
}
