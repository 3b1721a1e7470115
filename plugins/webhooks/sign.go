package webhooks

import (
	"time"

	"github.com/hearthwallet/hearth/lib/signature"
)

// SignatureHeader is the header that carries a delivery's signature.
const SignatureHeader = signature.Header

// Sign returns the Hearth-Signature value of body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>".
func Sign(secret string, t time.Time, body []byte) string { return signature.Sign(secret, t, body) }

// Verify checks a delivery as a receiver gets it: header is the
// Hearth-Signature value, body the raw request body (before any JSON
// decoding), now the receiver's clock and window the replay window (5
// minutes is a good choice): a signature older or newer than window is
// refused even when it matches, so a captured request cannot be replayed
// later. Several v1= values (a future key rotation) are accepted if one
// matches. The comparison takes constant time.
func Verify(secret, header string, body []byte, now time.Time, window time.Duration) error {
	return signature.Verify(secret, header, body, now, window)
}

// The errors of Verify.
var (
	ErrBadSignature = signature.ErrBadSignature
	ErrStale        = signature.ErrStale
	ErrNoSignature  = signature.ErrNoSignature
)
