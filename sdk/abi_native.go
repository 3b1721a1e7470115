//go:build !wasip1

package sdk

import "errors"

// Host answers a plugin's host calls in a native build: package sdktest
// provides one, so that plugins are unit-tested with plain go test.
type Host interface {
	// Call runs host function op on the JSON request and returns the JSON
	// answer, or an *Error.
	Call(op string, req []byte) ([]byte, error)
}

var testHost Host

// SetHost installs the host that native builds call; sdktest does this.
func SetHost(h Host) { testHost = h }

func hostCall(op string, req []byte) ([]byte, error) {
	if testHost == nil {
		return nil, errors.New("sdk: no host; in tests, use sdktest.New")
	}
	return testHost.Call(op, req)
}

// DeliverEvent runs the registered event handler on the JSON event, as the
// host's event export would; the answer is empty or {"error": ...}. For
// test doubles.
func DeliverEvent(payload []byte) []byte { return dispatchEvent(payload) }

// ServeRequest runs the HTTP handler on the JSON request and returns the
// JSON response, as the host's http export would. For test doubles.
func ServeRequest(payload []byte) []byte { return dispatchHTTP(payload) }
