package cln

import (
	"context"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
)

// The on-chain half (newaddr, fundpsbt/signpsbt/sendpsbt, listfunds
// deposits) is not built yet: every on-chain call answers ErrNoOnchain, a
// 422 of the same code as the embedded node's, which says so.

// ErrNoOnchain is every answer of the on-chain calls of this backend.
var ErrNoOnchain = fault.New(fault.Unprocessable, "onchain_unavailable",
	"the on-chain wallet is not supported with node.backend = \"cln\" yet; use an lnd node for on-chain")

// NewAddress refuses: the on-chain half is not built.
func (n *Node) NewAddress(context.Context, ledger.AddressType) (string, error) {
	return "", ErrNoOnchain
}

// ChainTransactions refuses: the on-chain half is not built.
func (n *Node) ChainTransactions(context.Context, int64) (int64, []ledger.ChainTx, error) {
	return 0, nil, ErrNoOnchain
}

// SubscribeChain refuses: the on-chain half is not built.
func (n *Node) SubscribeChain(context.Context) (<-chan ledger.ChainEvent, error) {
	return nil, ErrNoOnchain
}

// PrepareSpend refuses: the on-chain half is not built.
func (n *Node) PrepareSpend(context.Context, string, ledger.SpendRequest) (*ledger.PreparedSpend, error) {
	return nil, ErrNoOnchain
}

// PublishSpend refuses: the on-chain half is not built.
func (n *Node) PublishSpend(context.Context, *ledger.PreparedSpend) error { return ErrNoOnchain }

// ReleaseSpend has nothing to release.
func (n *Node) ReleaseSpend(context.Context, string) error { return nil }

// LookupChainTx knows no transaction.
func (n *Node) LookupChainTx(context.Context, string) (*ledger.ChainTx, error) {
	return nil, ledger.ErrUnknownChainTx
}

var (
	_ ledger.ChainWallet  = (*Node)(nil)
	_ ledger.ChainSpender = (*Node)(nil)
)
