package lnd

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/chainrpc"

	"github.com/hearthwallet/hearth/core/ledger"
)

// The on-chain wallet of the node (ledger.ChainWallet): its addresses, its
// transactions and a stream of what happens on the chain, from lnrpc's
// wallet calls and the chain notifier.

// addressTypes are the address types LND makes; it makes no P2PKH.
var addressTypes = map[ledger.AddressType]lnrpc.AddressType{
	ledger.P2WPKH: lnrpc.AddressType_WITNESS_PUBKEY_HASH,
	ledger.P2SH:   lnrpc.AddressType_NESTED_PUBKEY_HASH,
	ledger.P2TR:   lnrpc.AddressType_TAPROOT_PUBKEY,
}

// NewAddress returns a new address of the node's default wallet account.
func (n *Node) NewAddress(ctx context.Context, typ ledger.AddressType) (string, error) {
	t, ok := addressTypes[typ]
	if !ok {
		return "", ledger.ErrUnsupportedAddressType.Reasonf("Unsupported address type: lnd makes no %s addresses", typ)
	}
	res, err := n.ln.NewAddress(ctx, &lnrpc.NewAddressRequest{Type: t})
	if err != nil {
		return "", fmt.Errorf("lnd new %s address: %w", typ, err)
	}
	return res.Address, nil
}

// ChainTransactions lists the wallet's transactions from fromHeight up,
// with the unconfirmed ones, and the tip they were read at.
func (n *Node) ChainTransactions(ctx context.Context, fromHeight int64) (int64, []ledger.ChainTx, error) {
	info, err := n.getInfo(ctx)
	if err != nil {
		return 0, nil, err
	}
	start := int32(min(max(fromHeight, 0), math.MaxInt32))
	res, err := n.ln.GetTransactions(ctx, &lnrpc.GetTransactionsRequest{StartHeight: start, EndHeight: -1})
	if err != nil {
		return 0, nil, fmt.Errorf("lnd get transactions: %w", err)
	}
	txs := make([]ledger.ChainTx, 0, len(res.Transactions))
	for _, t := range res.Transactions {
		txs = append(txs, chainTx(t))
	}
	// The list may have been read after a block the info did not see yet.
	tip := int64(info.BlockHeight)
	for _, t := range txs {
		tip = max(tip, t.BlockHeight)
	}
	return tip, txs, nil
}

// SubscribeChain merges the wallet's transaction stream with the chain
// notifier's blocks; the channel closes when either breaks or ctx ends.
func (n *Node) SubscribeChain(ctx context.Context) (<-chan ledger.ChainEvent, error) {
	ctx, cancel := context.WithCancel(ctx)
	txs, err := n.ln.SubscribeTransactions(ctx, &lnrpc.GetTransactionsRequest{})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("lnd subscribe transactions: %w", err)
	}
	blocks, err := chainrpc.NewChainNotifierClient(n.conn).RegisterBlockEpochNtfn(ctx, &chainrpc.BlockEpoch{})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("lnd subscribe blocks: %w", err)
	}
	out := make(chan ledger.ChainEvent)
	send := func(ev ledger.ChainEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		for {
			t, err := txs.Recv()
			if err != nil || !send(ledger.ChainEvent{Tx: ptr(chainTx(t))}) {
				return
			}
		}
	})
	wg.Go(func() {
		defer cancel()
		for {
			b, err := blocks.Recv()
			if err != nil || !send(ledger.ChainEvent{Height: int64(b.Height)}) {
				return
			}
		}
	})
	go func() {
		wg.Wait()
		close(out)
	}()
	return out, nil
}

// chainTx turns an lnrpc transaction into the wallet's terms.
func chainTx(t *lnrpc.Transaction) ledger.ChainTx {
	out := ledger.ChainTx{TxID: t.TxHash, Confirmations: int64(max(t.NumConfirmations, 0)), FeeSat: t.TotalFees}
	if t.NumConfirmations > 0 && t.BlockHeight > 0 {
		out.BlockHeight = int64(t.BlockHeight)
	}
	for _, o := range t.OutputDetails {
		if o.OutputIndex < 0 || o.OutputIndex > math.MaxUint32 {
			continue
		}
		out.Outputs = append(out.Outputs, ledger.ChainOutput{Vout: uint32(o.OutputIndex), Address: o.Address, AmountSat: o.Amount})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

var _ ledger.ChainWallet = (*Node)(nil)
