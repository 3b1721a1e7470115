package webhooks_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// A receiver checks a delivery with the webhook's secret, the raw body
// and a replay window.
func ExampleVerify() {
	secret := "whsec_example"
	body := []byte(`{"id":42,"type":"invoice.settled","created_at":"2026-11-23T12:00:00Z","wallet_id":"…","data":{}}`)
	sent := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	header := webhooks.Sign(secret, sent, body) // what Hearth puts in Hearth-Signature

	fmt.Println(webhooks.Verify(secret, header, body, sent.Add(time.Second), 5*time.Minute))
	fmt.Println(webhooks.Verify(secret, header, []byte(strings.Replace(string(body), "42", "43", 1)), sent, 5*time.Minute))
	fmt.Println(webhooks.Verify(secret, header, body, sent.Add(time.Hour), 5*time.Minute))
	// Output:
	// <nil>
	// webhook signature does not match
	// webhook signature is outside the replay window
}

// Verify takes any header and body without panicking, and accepts what
// Sign made for them alone.
func FuzzVerify(f *testing.F) {
	f.Add("t=1795440000,v1=00", []byte(`{}`))
	f.Add("t=,v1=", []byte(nil))
	f.Add("v1=zz,t=-1,t=2,v1=", []byte("x"))
	now := time.Unix(1795440000, 0)
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if webhooks.Verify("s", header, body, now, time.Minute) == nil && header != webhooks.Sign("s", now, body) {
			// Another header may match only by carrying the same signature.
			if !strings.Contains(header, webhooks.Sign("s", now, body)[len("t=1795440000,"):]) {
				t.Fatalf("accepted %q for %q", header, body)
			}
		}
		if err := webhooks.Verify("s", webhooks.Sign("s", now, body), body, now, time.Minute); err != nil {
			t.Fatalf("own signature refused: %v", err)
		}
	})
}
