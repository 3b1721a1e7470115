// Package fault defines the classified errors that core returns to its callers.
//
// A fault carries a Kind (which the HTTP layer maps to a status code in one
// table), a stable machine-readable Code and a human Reason that is safe to
// show to the client. Any error that is not a fault is internal: callers log it
// and answer with a generic message, never its text.
package fault

import (
	"errors"
	"fmt"
)

// Kind classifies a fault by what the client did wrong.
type Kind int

// The kinds of fault, one per HTTP status family the API uses.
const (
	Invalid         Kind = iota + 1 // malformed request: 400
	Unauthenticated                 // no or bad credential: 401
	Forbidden                       // valid credential without the right: 403
	NotFound                        // unknown resource: 404
	NotAllowed                      // method not allowed in this configuration: 405
	Conflict                        // state conflict, duplicate: 409
	TooLarge                        // body over the limit: 413
	Unsupported                     // unsupported media type: 415
	Unprocessable                   // well-formed but refused by a rule: 422
	TooManyRequests                 // rate limited: 429
	Unavailable                     // a dependency is down: 503
)

// Error is a classified, client-safe error.
type Error struct {
	Kind   Kind
	Code   string
	Reason string
}

// Error returns the reason.
func (e *Error) Error() string { return e.Reason }

// Is reports whether target is a fault with the same kind and code, so that
// sentinels match even when the reason was made more specific with Reasonf.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Code == e.Code
}

// New returns a fault.
func New(kind Kind, code, reason string) *Error {
	return &Error{Kind: kind, Code: code, Reason: reason}
}

// Reasonf returns a copy of e with a more specific reason; it still matches e
// under errors.Is.
func (e *Error) Reasonf(format string, args ...any) *Error {
	return &Error{Kind: e.Kind, Code: e.Code, Reason: fmt.Sprintf(format, args...)}
}

// Invalidf returns a 400-class fault with code "invalid_request".
func Invalidf(format string, args ...any) *Error {
	return New(Invalid, "invalid_request", fmt.Sprintf(format, args...))
}

// Unprocessablef returns a 422-class fault with the given code.
func Unprocessablef(code, format string, args ...any) *Error {
	return New(Unprocessable, code, fmt.Sprintf(format, args...))
}

// As returns the fault in err's chain, if any.
func As(err error) (*Error, bool) {
	var f *Error
	if errors.As(err, &f) {
		return f, true
	}
	return nil, false
}
