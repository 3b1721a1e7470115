package embedded

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// The embedded node has no chain and no on-chain wallet: every on-chain
// call answers ledger.ErrNoOnchain, which the API shows as a 422 saying
// that the on-chain wallet needs an lnd or cln node.

// NewAddress refuses: there is no on-chain wallet.
func (n *Node) NewAddress(context.Context, ledger.AddressType) (string, error) {
	return "", ledger.ErrNoOnchain
}

// ChainTransactions refuses: there is no on-chain wallet.
func (n *Node) ChainTransactions(context.Context, int64) (int64, []ledger.ChainTx, error) {
	return 0, nil, ledger.ErrNoOnchain
}

// SubscribeChain refuses: there is no on-chain wallet.
func (n *Node) SubscribeChain(context.Context) (<-chan ledger.ChainEvent, error) {
	return nil, ledger.ErrNoOnchain
}

// PrepareSpend refuses: there is no on-chain wallet.
func (n *Node) PrepareSpend(context.Context, string, ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	return nil, ledger.ErrNoOnchain
}

// PublishSpend refuses: there is no on-chain wallet.
func (n *Node) PublishSpend(context.Context, *ledger.PreparedSpend) error { return ledger.ErrNoOnchain }

// ReleaseSpend has nothing to release.
func (n *Node) ReleaseSpend(context.Context, string) error { return nil }

// LookupChainTx knows no transaction.
func (n *Node) LookupChainTx(context.Context, string) (*ledger.ChainTx, error) {
	return nil, ledger.ErrUnknownChainTx
}

// Local says that the node lives in the instance's database: no chain,
// invoices that are rows there.
func (n *Node) Local() {}

var (
	_ ledger.Local        = (*Node)(nil)
	_ ledger.ChainWallet  = (*Node)(nil)
	_ ledger.ChainSpender = (*Node)(nil)
)
