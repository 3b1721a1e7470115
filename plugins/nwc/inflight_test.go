package nwc_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestPaymentInFlightPastItsWait pays an invoice whose payment stays in
// flight past pay_invoice's wait: the answer is OTHER, saying the payment
// may still settle and naming its payment hash, not INTERNAL.
func TestPaymentInFlightPastItsWait(t *testing.T) {
	o := plugintest.Options{AllowPrivate: true, Node: plugintest.StuckPayments}
	plugintest.Each(t, o, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, func(c *nwc.Config) { c.PayWait = 300 * time.Millisecond })
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "Damus"})

		inv := plugintest.OutsideInvoice(t, 5_000, "held")
		r := a.Call("pay_invoice", map[string]any{"invoice": inv.Bolt11})
		if r.Error == nil || r.Error.Code != "OTHER" || !strings.Contains(r.Error.Message, "in flight") ||
			!strings.Contains(r.Error.Message, "may still settle") || !strings.Contains(r.Error.Message, inv.PaymentHash) {
			t.Fatalf("pay_invoice in flight: %+v", r.Error)
		}
	})
}
