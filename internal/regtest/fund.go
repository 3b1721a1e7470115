package regtest

import (
	"context"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/btcsuite/btcd/txscript"
	"github.com/btcsuite/btcd/wire"
)

// miner is the key btcd mines to. btcd has no generatetoaddress, and lnd
// needs a chain with recent blocks before it starts (so before it can tell
// its address): the harness mines to a key of its own and pays the nodes
// from its coinbases.
type miner struct {
	key     *btcec.PrivateKey
	address string
	script  []byte
}

func newMiner() (*miner, error) {
	key, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, err
	}
	addr, err := btcutil.NewAddressWitnessPubKeyHash(btcutil.Hash160(key.PubKey().SerializeCompressed()), &chaincfg.RegressionNetParams)
	if err != nil {
		return nil, err
	}
	script, err := txscript.PayToAddrScript(addr)
	if err != nil {
		return nil, err
	}
	return &miner{key: key, address: addr.EncodeAddress(), script: script}, nil
}

// fund pays 20 BTC to each lnd node from the first block's coinbase, mines
// it, and waits until Hearth's node can spend.
func (n *Network) fund(ctx context.Context, m *miner) error {
	c, err := n.Btcd.client()
	if err != nil {
		return err
	}
	defer c.Shutdown()
	hash, err := c.GetBlockHash(1)
	if err != nil {
		return fmt.Errorf("block 1: %w", err)
	}
	block, err := c.GetBlock(hash)
	if err != nil {
		return fmt.Errorf("block 1: %w", err)
	}
	coinbase := block.Transactions[0]
	value := coinbase.TxOut[0].Value
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(ptr(coinbase.TxHash()), 0), nil, nil))
	const each = 20 * btcutil.SatoshiPerBitcoin
	for _, node := range []*Node{n.Hearth, n.Peer} {
		addr, err := node.NewAddress(ctx)
		if err != nil {
			return err
		}
		decoded, err := btcutil.DecodeAddress(addr, &chaincfg.RegressionNetParams)
		if err != nil {
			return err
		}
		script, err := txscript.PayToAddrScript(decoded)
		if err != nil {
			return err
		}
		tx.AddTxOut(wire.NewTxOut(each, script))
	}
	tx.AddTxOut(wire.NewTxOut(value-2*each-100_000, m.script)) // change, 100k sat fee
	hashes := txscript.NewTxSigHashes(tx, txscript.NewCannedPrevOutputFetcher(m.script, value))
	witness, err := txscript.WitnessSignature(tx, hashes, 0, value, m.script, txscript.SigHashAll, m.key, true)
	if err != nil {
		return fmt.Errorf("signing the funding transaction: %w", err)
	}
	tx.TxIn[0].Witness = witness
	if _, err := c.SendRawTransaction(tx, true); err != nil {
		return fmt.Errorf("sending the funding transaction: %w", err)
	}
	if err := n.Mine(ctx, 1); err != nil {
		return err
	}
	return n.Hearth.waitFunds(ctx)
}

func ptr[T any](v T) *T { return &v }
