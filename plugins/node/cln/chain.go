package cln

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"

	"github.com/hearthwallet/hearth/core/ledger"
)

// The on-chain wallet of the node (ledger.ChainWallet): deposit addresses
// from newaddr, the wallet's transactions from listtransactions, new
// blocks and the tip from waitblockheight. lightningd's wallet learns of a
// deposit when it is mined, so deposits show from their first
// confirmation. It notices a reorganisation only when it reads a block
// above its tip whose parent is not its tip: a block replaced by another
// at the same height still counts until the chain grows past it.
// Spending is in spend.go.

// addressTypes are the address types lightningd makes (p2sh-segwit is gone
// since v23.02; it never made p2pkh).
var addressTypes = map[ledger.AddressType]string{
	ledger.P2WPKH: "bech32",
	ledger.P2TR:   "p2tr",
}

// NewAddress returns a new address of the node's wallet.
func (n *Node) NewAddress(ctx context.Context, typ ledger.AddressType) (string, error) {
	t, ok := addressTypes[typ]
	if !ok {
		return "", ledger.ErrUnsupportedAddressType.Reasonf("Unsupported address type: cln makes no %s addresses", typ)
	}
	var res newaddrResponse
	if err := n.call(ctx, newaddrRequest{AddressType: t}, &res); err != nil {
		return "", err
	}
	addr := res.Bech32
	if typ == ledger.P2TR {
		addr = res.P2TR
	}
	if addr == "" {
		return "", fmt.Errorf("cln newaddr answered no %s address", t)
	}
	return addr, nil
}

// ChainTransactions lists the wallet's transactions mined at fromHeight or
// above, and the tip they were read at.
func (n *Node) ChainTransactions(ctx context.Context, fromHeight int64) (int64, []ledger.ChainTx, error) {
	_, params, err := n.identity(ctx)
	if err != nil {
		return 0, nil, err
	}
	height, err := n.chainTip(ctx)
	if err != nil {
		return 0, nil, err
	}
	var res listtransactionsResponse
	if err := n.call(ctx, listtransactionsRequest{}, &res); err != nil {
		return 0, nil, err
	}
	tip := int64(height)
	for _, t := range res.Transactions {
		tip = max(tip, int64(t.Blockheight))
	}
	var txs []ledger.ChainTx
	for _, t := range res.Transactions {
		if t.Blockheight != 0 && int64(t.Blockheight) < fromHeight {
			continue
		}
		tx := ledger.ChainTx{TxID: t.Hash}
		if t.Blockheight != 0 {
			tx.BlockHeight = int64(t.Blockheight)
			tx.Confirmations = tip - tx.BlockHeight + 1
		}
		for _, o := range t.Outputs {
			tx.Outputs = append(tx.Outputs, ledger.ChainOutput{Vout: o.Index, Address: address(o.ScriptPubKey, params), AmountSat: o.AmountMsat / 1000})
		}
		txs = append(txs, tx)
	}
	return tip, txs, nil
}

// address is the address of a script, or "" when it has none.
func address(script string, params *chaincfg.Params) string {
	raw, err := hex.DecodeString(script)
	if err != nil {
		return ""
	}
	_, addrs, _, err := txscript.ExtractPkScriptAddrs(raw, params)
	if err != nil || len(addrs) != 1 {
		return ""
	}
	return addrs[0].EncodeAddress()
}

// chainTip is the height of the chain lightningd has processed, its
// wallet with it: waitblockheight for a height already reached answers at
// once with it. getinfo's blockheight is not: it is the height gossipd
// has acknowledged, which trails the chain's, so that a block
// waitblockheight announced may not show there yet (and a deposit read
// then would count a confirmation too few).
func (n *Node) chainTip(ctx context.Context) (uint32, error) {
	var res waitblockheightResponse
	if err := n.call(ctx, waitblockheightRequest{Blockheight: 0, Timeout: 0}, &res); err != nil {
		return 0, err
	}
	return res.Blockheight, nil
}

// blockWait is how long one waitblockheight call lasts: the stream checks
// that the node is still there at least that often.
const blockWait = 60

// SubscribeChain delivers every new block height (the on-chain plugin
// re-reads the wallet's transactions at each) until ctx ends or the node
// goes away; then it closes the channel.
func (n *Node) SubscribeChain(ctx context.Context) (<-chan ledger.ChainEvent, error) {
	height, err := n.chainTip(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan ledger.ChainEvent)
	go func() {
		defer close(out)
		for {
			var res waitblockheightResponse
			err := n.call(ctx, waitblockheightRequest{Blockheight: height + 1, Timeout: blockWait}, &res)
			if code, ok := rpcCode(err); ok && code == 2000 {
				continue // no block yet
			}
			if err != nil {
				return
			}
			height = res.Blockheight
			select {
			case out <- ledger.ChainEvent{Height: int64(height)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// LookupChainTx finds a transaction of the wallet (listtransactions).
func (n *Node) LookupChainTx(ctx context.Context, txid string) (*ledger.ChainTx, error) {
	_, txs, err := n.ChainTransactions(ctx, 0)
	if err != nil {
		return nil, err
	}
	for _, t := range txs {
		if t.TxID == txid {
			return &t, nil
		}
	}
	return nil, ledger.ErrUnknownChainTx
}

var (
	_ ledger.ChainWallet  = (*Node)(nil)
	_ ledger.ChainSpender = (*Node)(nil)
)
