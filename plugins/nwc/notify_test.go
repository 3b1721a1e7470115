package nwc_test

import (
	"encoding/json"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
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
		a.call("pay_invoice", map[string]any{"invoice": bolt11}).result(t, &paid)
		want := func(app *app, kind int, typ string, n int) {
			t.Helper()
			app.waitFor(typ+" notifications", func() bool { return countKind(app, kind) >= n })
			got := app.notifications(kind)
			var last struct {
				Type string `json:"notification_type"`
				N    struct {
					PaymentHash string `json:"payment_hash"`
					Amount      int64
					Preimage    string
				} `json:"notification"`
			}
			if err := json.Unmarshal([]byte(got[len(got)-1]), &last); err != nil {
				t.Fatal(err)
			}
			if last.Type != typ || last.N.Amount != 7_000 || last.N.Preimage != paid.Preimage {
				t.Fatalf("notification %s", got[len(got)-1])
			}
		}
		want(b, 23197, "payment_received", 1)
		want(b, 23196, "payment_received", 1)
		want(a, 23197, "payment_sent", 1)
		want(a, 23196, "payment_sent", 1)
		if !contains(b.notifications(23197), hash) {
			t.Fatalf("payment_received lacks the payment hash")
		}
		quiet.mu.Lock()
		n := countKind(quiet, 23197) + countKind(quiet, 23196)
		quiet.mu.Unlock()
		if n != 0 {
			t.Fatalf("a connection without notifications got %d", n)
		}

		// The relay down: the payment commits, the notification waits.
		k.relay.stop()
		second, _ := k.invoice(bob, 7_000)
		if r := k.do(alice, "POST", "/v1/me/payments", map[string]any{"input": second}); r.Code != 201 {
			t.Fatalf("paying over REST: %d %s", r.Code, r.Body)
		}
		k.relay.start()
		b.dial()
		b.waitFor("the second payment_received", func() bool { return countKind(b, 23197) >= 2 })

		// The server stopped between the commit and the publication.
		k.stop()
		third, _ := k.invoice(bob, 7_000)
		if r := k.do(alice, "POST", "/v1/me/payments", map[string]any{"input": third}); r.Code != 201 {
			t.Fatalf("paying over REST: %d %s", r.Code, r.Body)
		}
		k.p = k.newPlugin()
		k.startLead(k.p)
		b.waitFor("the third payment_received", func() bool { return countKind(b, 23197) >= 3 })
	})
}

func countKind(a *app, kind int) int {
	n := 0
	for _, ev := range a.got {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}
