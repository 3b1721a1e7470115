// Package nodecontract is the behaviour every Lightning node backend owes
// the ledger, as one table of cases (cases.go) that each backend's tests
// run: lnd on the regtest network, cln through its schema-checked double.
// A backend's test supplies a Network, the node under test and the world
// around it; the cases drive a real ledger on SQLite and PostgreSQL over
// it and check what the node did.
package nodecontract

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Network is a node under test, its backend, and a peer with a channel to
// it that pays and is paid.
type Network interface {
	// Backend returns a backend connected to the node, closed at the end
	// of the test.
	Backend(t testing.TB) ledger.Node
	// PeerPays has the peer pay an invoice of the node.
	PeerPays(ctx context.Context, bolt11 string) error
	// PeerInvoice is an invoice of the peer, settled when paid.
	PeerInvoice(ctx context.Context, msat int64, desc string) (bolt11, hash string, err error)
	// UnroutableInvoice is a valid invoice of a node nobody can reach.
	UnroutableInvoice(t testing.TB, msat int64) string
	// HoldInvoice is an invoice of the peer that holds a payment until
	// SettleHold or CancelHold; WaitHeld returns once it holds one.
	HoldInvoice(ctx context.Context, msat int64) (bolt11, hash string, err error)
	WaitHeld(ctx context.Context, hash string) error
	SettleHold(ctx context.Context, hash string) error
	CancelHold(ctx context.Context, hash string) error
	// KillNode stops the node at once, connections and all; RestartNode
	// brings it back with its state. A test that kills the node has it
	// restarted at its end.
	KillNode(t testing.TB)
	RestartNode(ctx context.Context) error
	// InvoiceWithdrawn reports whether the node's invoice of hash can no
	// longer be paid (cancelled, deleted).
	InvoiceWithdrawn(ctx context.Context, hash string) (bool, error)
	// PaymentCount is how many payments of hash the node made.
	PaymentCount(ctx context.Context, hash string) (int, error)
	// Verify fails t on what the node saw wrong (the cln double: a call
	// that does not match the method's schema); it runs after each case.
	Verify(t testing.TB)
}
