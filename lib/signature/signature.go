// Package signature signs the requests the host's event streams deliver
// (webhooks), and lets a receiver verify them: an HMAC-SHA256 of the
// request's time and body under the stream's secret, in the
// Hearth-Signature header.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header is the header that carries a delivery's signature.
const Header = "Hearth-Signature"

// Sign returns the Hearth-Signature value of body sent at t:
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// The errors of Verify.
var (
	ErrBadSignature = errors.New("webhook signature does not match")
	ErrStale        = errors.New("webhook signature is outside the replay window")
	ErrNoSignature  = errors.New("webhook signature header is missing or malformed")
)

// Verify checks a delivery as a receiver gets it: header is the
// Hearth-Signature value, body the raw request body (before any JSON
// decoding), now the receiver's clock and window the replay window (5
// minutes is a good choice): a signature older or newer than window is
// refused even when it matches, so a captured request cannot be replayed
// later. Several v1= values (a future key rotation) are accepted if one
// matches. The comparison takes constant time.
func Verify(secret, header string, body []byte, now time.Time, window time.Duration) error {
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := mac(secret, ts, body)
	ok := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			ok = true
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > window || d < -window {
		return ErrStale
	}
	return nil
}
