package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
)

// statusOf is the one table from fault kinds to HTTP status codes.
var statusOf = map[fault.Kind]int{
	fault.Invalid:         http.StatusBadRequest,
	fault.Unauthenticated: http.StatusUnauthorized,
	fault.Forbidden:       http.StatusForbidden,
	fault.NotFound:        http.StatusNotFound,
	fault.NotAllowed:      http.StatusMethodNotAllowed,
	fault.Conflict:        http.StatusConflict,
	fault.TooLarge:        http.StatusRequestEntityTooLarge,
	fault.Unsupported:     http.StatusUnsupportedMediaType,
	fault.Unprocessable:   http.StatusUnprocessableEntity,
	fault.TooManyRequests: http.StatusTooManyRequests,
	fault.Unavailable:     http.StatusServiceUnavailable,
}

// Problem is the body of every error response.
type Problem struct {
	// Status is the HTTP status line, e.g. "422 Unprocessable Entity".
	Status string `json:"status"`
	// Reason says what went wrong, for a person.
	Reason string `json:"reason"`
	// Code is a stable machine-readable word, e.g. "insufficient_funds".
	Code string `json:"code"`
}

// errRetryAfter is a rate-limit fault that knows when to come back.
type errRetryAfter struct {
	fault   *fault.Error
	seconds int
}

func (e *errRetryAfter) Error() string { return e.fault.Reason }
func (e *errRetryAfter) Unwrap() error { return e.fault }

// The faults of the HTTP layer itself.
var (
	errRouteNotFound  = fault.New(fault.NotFound, "not_found", "No such route")
	errMethodNotAllow = fault.New(fault.NotAllowed, "method_not_allowed", "Method not allowed on this route")
	errBodyTooLarge   = fault.New(fault.TooLarge, "body_too_large", "Request body too large")
	errMediaType      = fault.New(fault.Unsupported, "unsupported_media_type", "Send request bodies as Content-Type: application/json")
	errRateLimited    = fault.New(fault.TooManyRequests, "rate_limited", "Too many requests; retry later")
	errInternal       = fault.New(0, "internal_error", "Internal server error")
)

// handleErrors is the middleware that writes every error response: a fault
// with its mapped status, anything else as a 500 whose detail is only logged.
func handleErrors(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		err := next(w, req)
		if err == nil {
			return nil
		}
		writeError(w, req.Request, err)
		return nil
	}
}

func writeError(w http.ResponseWriter, r *http.Request, err error) {
	f, ok := fault.As(err)
	status := http.StatusInternalServerError
	if ok {
		if s, known := statusOf[f.Kind]; known {
			status = s
		} else {
			ok = false
		}
	}
	if !ok {
		slog.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path,
			"request_id", requestID(r.Context()), "err", err)
		f = errInternal.Reasonf("Internal server error (request %s)", requestID(r.Context()))
	}
	var ra *errRetryAfter
	if errors.As(err, &ra) {
		w.Header().Set("Retry-After", strconv.Itoa(ra.seconds))
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
	}
	writeJSON(w, status, Problem{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Reason: f.Reason,
		Code:   f.Code,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Debug("writing response", "err", err)
	}
}
