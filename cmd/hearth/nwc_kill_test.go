package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// A server killed with SIGKILL after a payment into a wallet committed and
// before its NWC notification was published (the relay was down, the
// first attempt failed): the next server publishes it, and the app
// connected to the wallet gets its payment_received.
func TestNWCNotificationAfterAKill(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		relay := nostrtest.StartRelay(t)
		environ = append(environ, "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true", "HEARTH_NWC_RELAYS="+relay.URL())
		first, c := serveProcess(t, environ)
		token := signUp(t, c)
		var conn struct{ URI string }
		c.decode(c.expect(c.call("POST", "/v1/me/nwc/connections", `{"name":"app","methods":["get_balance","notifications"]}`, token), 201), &conn)
		app := nostrtest.Connect(t, conn.URI)
		poll.Until(t, time.Minute, func() error { // the server listens on the relay
			if r, ok := app.TryCall("get_balance", nil, 2*time.Second); !ok || r.Code() != "" {
				return fmt.Errorf("no answer to get_balance yet (%+v)", r)
			}
			return nil
		})

		relay.Stop()
		var inv struct {
			ID        string
			LnInvoice struct {
				Bolt11      string `json:"bolt11"`
				PaymentHash string `json:"payment_hash"`
			} `json:"ln_invoice"`
		}
		c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":5000,"description":"before a kill"}`, token), 201), &inv)
		c.expect(c.call("POST", "/v1/lightning-node/pay", `{"bolt11":"`+inv.LnInvoice.Bolt11+`"}`, token), 204)
		poll.Until(t, time.Minute, func() error {
			var got struct{ Status string }
			c.decode(c.expect(c.call("GET", "/v1/me/invoices/"+inv.ID, "", token), 200), &got)
			if got.Status != "Settled" {
				return fmt.Errorf("invoice %s", got.Status)
			}
			return nil
		})
		first.waitFor(regexp.MustCompile(`nwc: a notification waits for its relay`))
		first.kill()

		relay.Start()
		app.Dial()
		serveProcess(t, environ)
		app.WaitForKind("payment_received after the kill", 23197, 1)
		if n := app.Notifications(23197); len(n) != 1 || !strings.Contains(n[0], inv.LnInvoice.PaymentHash) ||
			!strings.Contains(n[0], `"payment_received"`) {
			t.Fatalf("notifications %v", n)
		}
	})
}
