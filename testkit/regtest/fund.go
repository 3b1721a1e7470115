package regtest

import (
	"context"
	"fmt"
	"sync"

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

	mu    sync.Mutex
	spent int64 // coinbases spent by FundAddress, from block 2 on
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

// FundAddress pays sat (a few BTC at most) to addr from a coinbase of the
// harness's own, one not spent yet, and returns the transaction id; Mine
// confirms it. It does not touch the nodes' wallets, which other tests
// spend from.
func (n *Network) FundAddress(ctx context.Context, addr string, sat int64) (string, error) {
	m := n.miner
	m.mu.Lock()
	m.spent++ // block 1's coinbase funded the nodes
	height := m.spent + 1
	m.mu.Unlock()
	c, err := n.Btcd.client()
	if err != nil {
		return "", err
	}
	defer c.Shutdown()
	hash, err := c.GetBlockHash(height)
	if err != nil {
		return "", fmt.Errorf("block %d: %w", height, err)
	}
	block, err := c.GetBlock(hash)
	if err != nil {
		return "", fmt.Errorf("block %d: %w", height, err)
	}
	coinbase := block.Transactions[0]
	value := coinbase.TxOut[0].Value
	decoded, err := btcutil.DecodeAddress(addr, &chaincfg.RegressionNetParams)
	if err != nil {
		return "", err
	}
	script, err := txscript.PayToAddrScript(decoded)
	if err != nil {
		return "", err
	}
	tx := wire.NewMsgTx(2)
	tx.AddTxIn(wire.NewTxIn(wire.NewOutPoint(ptr(coinbase.TxHash()), 0), nil, nil))
	tx.AddTxOut(wire.NewTxOut(sat, script))
	tx.AddTxOut(wire.NewTxOut(value-sat-100_000, m.script)) // change, 100k sat fee
	hashes := txscript.NewTxSigHashes(tx, txscript.NewCannedPrevOutputFetcher(m.script, value))
	witness, err := txscript.WitnessSignature(tx, hashes, 0, value, m.script, txscript.SigHashAll, m.key, true)
	if err != nil {
		return "", fmt.Errorf("signing: %w", err)
	}
	tx.TxIn[0].Witness = witness
	txid, err := c.SendRawTransaction(tx, true)
	if err != nil {
		return "", fmt.Errorf("sending: %w", err)
	}
	return txid.String(), nil
}
