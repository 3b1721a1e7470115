package nwc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// stuckNode is the instance's embedded node that also takes payments of
// invoices outside the instance and leaves every one in flight, as a node
// does while an HTLC is held somewhere on the route.
type stuckNode struct{ *embedded.Node }

func (n stuckNode) Info(ctx context.Context) (ledger.NodeInfo, error) {
	info, err := n.Node.Info(ctx)
	info.ExternalPayments = true
	return info, err
}

func (stuckNode) ExternalPayments() bool { return true }

func (stuckNode) Pay(context.Context, ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
}

func (stuckNode) LookupPayment(context.Context, string) (*ledger.NodePaymentResult, error) {
	return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
}

// TestPaymentInFlightPastItsWait pays an invoice whose payment stays in
// flight past pay_invoice's wait: the answer is OTHER, saying the payment
// may still settle and naming its payment hash, not INTERNAL.
func TestPaymentInFlightPastItsWait(t *testing.T) {
	o := plugintest.Options{AllowPrivate: true, Node: func(inner *embedded.Node) ledger.Node { return stuckNode{inner} }}
	plugintest.Each(t, o, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, func(c *nwc.Config) { c.PayWait = 300 * time.Millisecond })
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "Damus"})

		outside, err := embedded.New(context.Background(), storetest.SQLite(t), "regtest")
		if err != nil {
			t.Fatal(err)
		}
		inv, err := outside.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 5_000, Description: "held", Expiry: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		r := a.Call("pay_invoice", map[string]any{"invoice": inv.Bolt11})
		if r.Error == nil || r.Error.Code != "OTHER" || !strings.Contains(r.Error.Message, "in flight") ||
			!strings.Contains(r.Error.Message, "may still settle") || !strings.Contains(r.Error.Message, inv.PaymentHash) {
			t.Fatalf("pay_invoice in flight: %+v", r.Error)
		}
	})
}
