package nwc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestNotificationsReachTheApp sends payment_received and payment_sent to
// a connection, in both encryptions (23197 in NIP-44, 23196 in NIP-04);
// with the relay down when the payment commits, they are published once
// it is up again; with the server stopped between the commit and the
// publication, the next server publishes them.
func TestNotificationsReachTheApp(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "alice's app"})
		_, b := k.connect(bob, map[string]any{"name": "bob's app", "methods": []string{"get_balance", "notifications"}})
		_, quiet := k.connect(bob, map[string]any{"name": "no notifications", "methods": []string{"get_balance"}})

		bolt11, hash := k.invoice(bob, 7_000)
		var paid struct{ Preimage string }
		a.Call("pay_invoice", map[string]any{"invoice": bolt11}).Decode(t, &paid)
		// want waits for the payment's notification of kind to app (an app
		// may also hear of its wallet's funding, which may be read after
		// the connection was made).
		want := func(app *nostrtest.App, kind int, typ string) {
			t.Helper()
			e.Eventually(typ+" notification", func() bool {
				for _, raw := range app.Notifications(kind) {
					var n struct {
						Type string `json:"notification_type"`
						N    struct {
							PaymentHash string `json:"payment_hash"`
							Amount      int64
							Preimage    string
						} `json:"notification"`
					}
					if json.Unmarshal([]byte(raw), &n) == nil && n.Type == typ && n.N.PaymentHash == hash &&
						n.N.Amount == 7_000 && n.N.Preimage == paid.Preimage {
						return true
					}
				}
				return false
			})
		}
		want(b, 23197, "payment_received")
		want(b, 23196, "payment_received")
		want(a, 23197, "payment_sent")
		want(a, 23196, "payment_sent")
		if !contains(b.Notifications(23197), hash) {
			t.Fatalf("payment_received lacks the payment hash")
		}
		n := quiet.Count(23197) + quiet.Count(23196)
		if n != 0 {
			t.Fatalf("a connection without notifications got %d", n)
		}

		// The relay down: the payment commits, the notification waits.
		k.relay.Stop()
		second, _ := k.invoice(bob, 7_000)
		if r := k.do(alice, "POST", "/v1/me/payments", map[string]any{"input": second}); r.Code != 201 {
			t.Fatalf("paying over REST: %d %s", r.Code, r.Body)
		}
		e.Eventually("a publication failed while the relay is down", func() bool { return k.publications("failed") >= 1 })
		k.relay.Start()
		b.Dial()
		b.WaitForKind("the second payment_received", 23197, 2)

		// The server stopped between the commit and the publication.
		k.stop()
		third, _ := k.invoice(bob, 7_000)
		if r := k.do(alice, "POST", "/v1/me/payments", map[string]any{"input": third}); r.Code != 201 {
			t.Fatalf("paying over REST: %d %s", r.Code, r.Body)
		}
		k.p = k.newPlugin()
		k.startLead(k.p)
		b.WaitForKind("the third payment_received", 23197, 3)
		// Two connections take notifications (alice's and bob's): 2 + 1 +
		// 1 published at least, counted once the relay's OK is in.
		e.Eventually("the publications counted", func() bool { return k.publications("published") >= 4 })
	})
}

// contains reports whether one of list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
