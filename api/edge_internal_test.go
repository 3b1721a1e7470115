package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/config"
)

// TestPanicIsAJSON500 checks the recovery at the edge: a handler that
// panics gets a JSON 500 naming the request id, and the log one error line
// with that id and no stack trace at the default level.
func TestPanicIsAJSON500(t *testing.T) {
	t.Parallel()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var logs bytes.Buffer
		s := New(Deps{Config: config.Default(), Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))})
		h := s.outermost(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			var m map[string]int
			m["boom"]++ // a nil map: a runtime panic
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/me", nil))

		if rec.Code != 500 {
			t.Fatalf("status %d, want 500", rec.Code)
		}
		var p Problem
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code != "internal_error" {
			t.Fatalf("body %q is not the internal error (%v)", rec.Body, err)
		}
		id := rec.Header().Get("X-Request-Id")
		if !strings.Contains(p.Reason, id) || strings.Contains(rec.Body.String(), "nil map") {
			t.Errorf("reason %q: want the request id %s and no detail", p.Reason, id)
		}
		var errorLines []string
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, "level=ERROR") {
				errorLines = append(errorLines, line)
			}
		}
		if len(errorLines) != 1 || !strings.Contains(errorLines[0], id) {
			t.Fatalf("level %v: want one error line with the request id, got %q", level, errorLines)
		}
		if hasStack := strings.Contains(logs.String(), "goroutine"); hasStack != (level == slog.LevelDebug) {
			t.Errorf("level %v: stack trace in the log = %v", level, hasStack)
		}
	}
}

// TestAbortHandlerPanicGoesOn checks that http.ErrAbortHandler, which
// net/http uses to abort a response silently, is not turned into a 500.
func TestAbortHandlerPanicGoesOn(t *testing.T) {
	t.Parallel()
	s := New(Deps{Config: config.Default(), Log: slog.New(slog.DiscardHandler)})
	h := s.outermost(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Fatalf("recovered %v, want http.ErrAbortHandler", v)
		}
	}()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}
