package clntest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// The node's on-chain wallet: addresses it hands out, deposits to them
// that the chain mines, and blocks. As lightningd's wallet, it lists a
// transaction once it is mined.

// chainTx is a transaction of the wallet (lightning-listtransactions).
type chainTx struct {
	tx          *wire.MsgTx
	blockheight uint32 // 0 until mined
	ours        bool   // sent by the wallet: listed before it is mined
}

func (n *Node) newaddr(a args) (any, error) {
	typ := "bech32"
	if a.has("addresstype") {
		typ = a.str("addresstype")
	}
	key, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	params := &chaincfg.RegressionNetParams
	out := map[string]string{}
	var addrs []btcutil.Address
	if typ == "bech32" || typ == "all" {
		addr, err := btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(key.PubKey().SerializeCompressed()), params)
		if err != nil {
			return nil, err
		}
		out["bech32"] = addr.EncodeAddress()
		addrs = append(addrs, addr)
	}
	if typ == "p2tr" || typ == "all" {
		addr, err := btcutil.NewAddressTaproot(schnorr.SerializePubKey(txscript.ComputeTaprootKeyNoScript(key.PubKey())), params)
		if err != nil {
			return nil, err
		}
		out["p2tr"] = addr.EncodeAddress()
		addrs = append(addrs, addr)
	}
	for _, addr := range addrs {
		script, err := txscript.PayToAddrScript(addr)
		if err != nil {
			return nil, err
		}
		n.scripts[string(script)] = true
	}
	return out, nil
}

func (n *Node) listtransactions() any {
	out := []any{}
	for _, c := range n.chain {
		if c.blockheight == 0 && !c.ours {
			continue
		}
		var raw bytes.Buffer
		c.tx.Serialize(&raw) //nolint:errcheck // a buffer does not fail
		var ins, outs []any
		for _, in := range c.tx.TxIn {
			ins = append(ins, map[string]any{"txid": in.PreviousOutPoint.Hash.String(), "index": in.PreviousOutPoint.Index, "sequence": in.Sequence})
		}
		for i, o := range c.tx.TxOut {
			outs = append(outs, map[string]any{"index": i, "amount_msat": o.Value * 1000, "scriptPubKey": hex.EncodeToString(o.PkScript)})
		}
		out = append(out, map[string]any{"hash": c.tx.TxHash().String(), "rawtx": hex.EncodeToString(raw.Bytes()),
			"blockheight": c.blockheight, "txindex": 1, "locktime": c.tx.LockTime, "version": c.tx.Version,
			"inputs": ins, "outputs": outs})
	}
	return map[string]any{"transactions": out}
}

// waitblockheight blocks until the chain reaches the height, for at most
// timeout seconds (default 60), then fails with 2000.
func (n *Node) waitblockheight(a args, gone <-chan struct{}) (any, error) {
	want := uint32(a.uint("blockheight"))
	timeout := uint64(60)
	if a.has("timeout") {
		timeout = a.uint("timeout")
	}
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		n.mu.Lock()
		height, changed := n.blockheight, n.changed
		n.mu.Unlock()
		if height >= want {
			return map[string]any{"blockheight": height}, nil
		}
		select {
		case <-changed:
		case <-deadline:
			return nil, &rpcError{Code: 2000, Message: fmt.Sprintf("Timed out waiting for blockheight %d", want)}
		case <-gone:
			return nil, errGone
		}
	}
}

// Deposit sends sat to address from outside the wallet; the wallet lists
// it once MineBlocks mined it. It returns the txid.
func (n *Node) Deposit(address string, sat int64) (string, error) {
	addr, err := btcutil.DecodeAddress(address, &chaincfg.RegressionNetParams)
	if err != nil {
		return "", err
	}
	script, err := txscript.PayToAddrScript(addr)
	if err != nil {
		return "", err
	}
	var prev chainhash.Hash
	rand.Read(prev[:]) //nolint:errcheck // never fails
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(&prev, 0), nil, nil))
	tx.AddTxOut(wire.NewTxOut(sat, script))
	n.mu.Lock()
	defer n.mu.Unlock()
	n.chain = append(n.chain, &chainTx{tx: tx})
	return tx.TxHash().String(), nil
}

// MineBlocks mines count blocks; the first confirms the deposits waiting.
func (n *Node) MineBlocks(count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.chain {
		if c.blockheight != 0 {
			continue
		}
		c.blockheight = n.blockheight + 1
		if !c.ours {
			n.addCoins(c.tx, c.blockheight)
		}
		for _, u := range n.utxos {
			if u.op.Hash == c.tx.TxHash() {
				u.height = c.blockheight
			}
		}
	}
	n.blockheight += uint32(count)
	n.notify()
}
