package plugintest

import (
	"context"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// StuckPayments is an Options.Node: the instance's embedded node that also
// takes payments of invoices outside the instance and leaves every one in
// flight, as a node does while an HTLC is held somewhere on the route. It
// lives here, not in a plugin's tests, because no plugin may import the
// embedded node (internal/archtest).
func StuckPayments(inner *embedded.Node) ledger.Node { return stuckNode{inner} }

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

// OutsideInvoice returns an invoice of msat made by an embedded node of
// its own, outside every test instance.
func OutsideInvoice(t testing.TB, msat int64, description string) *ledger.NodeInvoice {
	t.Helper()
	outside, err := embedded.New(context.Background(), storetest.SQLite(t), "regtest")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := outside.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: msat, Description: description, Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}
