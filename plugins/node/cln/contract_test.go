package cln_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
	"github.com/hearthwallet/hearth/testkit/nodecontract"
)

// The backend contract, through the schema-checked double, on SQLite and
// PostgreSQL.
func TestContract(t *testing.T) {
	nodecontract.Run(t, func(t *testing.T) nodecontract.Network {
		return &doubleNetwork{double: clntest.Start(t)}
	})
}

// doubleNetwork is the contract's Network over the double: the node under
// test and its channel peer are both scripted by it.
type doubleNetwork struct{ double *clntest.Node }

func (d *doubleNetwork) Backend(t testing.TB) ledger.Node {
	// The double runs no plugins, so it holds no invoice guard: the
	// withdrawal deletes invoices settled inside at full speed, as it
	// does on a lightningd where the guard is off.
	n, err := cln.New(cln.Config{RPCFile: d.double.Path(), Guard: cln.GuardOff})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (d *doubleNetwork) PeerPays(_ context.Context, bolt11 string) error {
	return d.double.PayInvoice(bolt11, 0)
}

func (d *doubleNetwork) PeerInvoice(_ context.Context, msat int64, desc string) (string, string, error) {
	return d.double.PeerInvoice(msat, desc, clntest.Settle)
}

func (d *doubleNetwork) UnroutableInvoice(t testing.TB, msat int64) string {
	s, err := clntest.StrangerInvoice(msat)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (d *doubleNetwork) HoldInvoice(_ context.Context, msat int64) (string, string, error) {
	return d.double.PeerInvoice(msat, "held", clntest.Hold)
}

func (d *doubleNetwork) WaitHeld(ctx context.Context, hash string) error {
	return d.double.WaitHeld(ctx, hash)
}

func (d *doubleNetwork) SettleHold(_ context.Context, hash string) error {
	return d.double.SettleHold(hash)
}

func (d *doubleNetwork) CancelHold(_ context.Context, hash string) error {
	return d.double.CancelHold(hash)
}

func (d *doubleNetwork) KillNode(t testing.TB) {
	d.double.Kill()
	t.Cleanup(func() { d.double.Restart() }) //nolint:errcheck // running already when the test went on
}

func (d *doubleNetwork) RestartNode(context.Context) error { return d.double.Restart() }

func (d *doubleNetwork) InvoiceWithdrawn(_ context.Context, hash string) (bool, error) {
	return d.double.InvoiceState(hash) == "deleted", nil
}

func (d *doubleNetwork) PaymentCount(_ context.Context, hash string) (int, error) {
	return d.double.PaymentCount(hash), nil
}

func (d *doubleNetwork) Verify(t testing.TB) {
	for _, r := range d.double.Rejected() {
		t.Errorf("the node refused a call as lightningd would: %s", r)
	}
}
