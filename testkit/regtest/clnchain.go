package regtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/btcutil/psbt"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/btcsuite/btcd/wire"
)

// The on-chain side of the Core Lightning network, for the tests of
// Hearth's on-chain wallet: the chain reorganised, and the coins of Hearth's
// lightningd as listfunds shows them — reserved (reserveinputs,
// txprepare) or free — held and taken by another program of the node, as
// the lnd network's leases (lease.go) are.

// ReorgTip reorganises the chain's best block away and replaces it with
// two empty blocks, and waits until every node has followed. The
// transactions of the block it removed are back in the mempool,
// unconfirmed. It returns the height of the block removed.
//
// The chain grows by one because lightningd notices a reorganisation only
// when it reads a block above its tip whose parent is not its tip: a
// chain that is merely shorter, or as long with another tip, leaves it on
// the block removed.
func (n *CLNNetwork) ReorgTip(ctx context.Context) (int64, error) {
	height, err := n.Bitcoind.InvalidateTip(ctx)
	if err != nil {
		return 0, fmt.Errorf("invalidating the tip: %w", err)
	}
	for range 2 {
		if err := n.Bitcoind.Call(ctx, nil, "generateblock", n.miner, []string{}); err != nil {
			return 0, fmt.Errorf("mining an empty block: %w", err)
		}
	}
	return height, n.WaitHeight(ctx, height+1)
}

// Height is the chain's height, as bitcoind sees it.
func (n *CLNNetwork) Height(ctx context.Context) (int64, error) { return n.Bitcoind.Height(ctx) }

// Mempool returns the ids of the transactions in bitcoind's mempool.
func (n *CLNNetwork) Mempool(ctx context.Context) ([]string, error) { return n.Bitcoind.Mempool(ctx) }

// Coin is an unspent output of a lightningd's wallet (listfunds).
type Coin struct {
	// Outpoint is "txid:vout".
	Outpoint string
	Address  string
	// ValueSat is the coin's value.
	ValueSat int64
	// Confirmed is false for a coin whose transaction is in no block.
	Confirmed bool
	// Reserved is true while a reservation holds the coin, until the block
	// ReservedTo.
	Reserved   bool
	ReservedTo int64
}

// Coins lists the unspent coins of the node's wallet.
func (n *CLNNode) Coins(ctx context.Context) ([]Coin, error) {
	var funds struct {
		Outputs []struct {
			TxID            string `json:"txid"`
			Output          uint32 `json:"output"`
			AmountMsat      int64  `json:"amount_msat"`
			Address         string `json:"address"`
			Status          string `json:"status"`
			Reserved        bool   `json:"reserved"`
			ReservedToBlock int64  `json:"reserved_to_block"`
		} `json:"outputs"`
	}
	if err := n.Call(ctx, &funds, "listfunds", nil); err != nil {
		return nil, err
	}
	var out []Coin
	for _, o := range funds.Outputs {
		if o.Status == "spent" {
			continue
		}
		out = append(out, Coin{Outpoint: o.TxID + ":" + strconv.FormatUint(uint64(o.Output), 10), Address: o.Address,
			ValueSat: o.AmountMsat / 1000, Confirmed: o.Status == "confirmed", Reserved: o.Reserved, ReservedTo: o.ReservedToBlock})
	}
	return out, nil
}

// ReservedCoins lists the node's coins reserved now, except those in
// except (outpoints).
func (n *CLNNode) ReservedCoins(ctx context.Context, except ...string) ([]Coin, error) {
	coins, err := n.Coins(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(coins, func(c Coin) bool { return !c.Reserved || slices.Contains(except, c.Outpoint) }), nil
}

// Reserved counts the node's coins reserved now.
func (n *CLNNode) Reserved(ctx context.Context) (int, error) {
	c, err := n.ReservedCoins(ctx)
	return len(c), err
}

// inputsPSBT is a PSBT spending the outpoints and paying nothing, what
// reserveinputs and unreserveinputs read their coins from.
func inputsPSBT(outpoints []string) (string, error) {
	ops := make([]*wire.OutPoint, len(outpoints))
	seqs := make([]uint32, len(outpoints))
	for i, s := range outpoints {
		txid, vout, ok := strings.Cut(s, ":")
		hash, err := chainhash.NewHashFromStr(txid)
		v, verr := strconv.ParseUint(vout, 10, 32)
		if !ok || err != nil || verr != nil {
			return "", fmt.Errorf("not an outpoint: %q", s)
		}
		ops[i], seqs[i] = wire.NewOutPoint(hash, uint32(v)), wire.MaxTxInSequenceNum
	}
	p, err := psbt.New(ops, nil, 2, 0, seqs)
	if err != nil {
		return "", err
	}
	return p.B64Encode()
}

// HoldCoins reserves every unspent coin of the node's wallet that is free
// now, confirmed or not, except those paid to the addresses in keep, as
// another program of the node might (reserveinputs, for lightningd's 72
// blocks). It returns the coins held (outpoints) and a function that
// releases them.
func (n *CLNNode) HoldCoins(ctx context.Context, keep ...string) (held []string, release func(context.Context) error, err error) {
	coins, err := n.Coins(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range coins {
		if !c.Reserved && !slices.Contains(keep, c.Address) {
			held = append(held, c.Outpoint)
		}
	}
	if len(held) == 0 {
		return nil, func(context.Context) error { return nil }, nil
	}
	p, err := inputsPSBT(held)
	if err != nil {
		return nil, nil, err
	}
	if err := n.Call(ctx, nil, "reserveinputs", map[string]any{"psbt": p, "exclusive": true}); err != nil {
		return nil, nil, fmt.Errorf("holding %d coins: %w", len(held), err)
	}
	released := false
	release = func(ctx context.Context) error {
		if released {
			return nil
		}
		released = true
		// A coin spent meanwhile is no longer the wallet's to release.
		coins, err := n.Coins(ctx)
		if err != nil {
			return err
		}
		var left []string
		for _, c := range coins {
			if slices.Contains(held, c.Outpoint) {
				left = append(left, c.Outpoint)
			}
		}
		if len(left) == 0 {
			return nil
		}
		p, err := inputsPSBT(left)
		if err != nil {
			return err
		}
		if err := n.Call(ctx, nil, "unreserveinputs", map[string]any{"psbt": p}); err != nil {
			return fmt.Errorf("releasing %d held coins: %w", len(left), err)
		}
		return nil
	}
	return held, release, nil
}

// TakeCoin releases the reserved coin c from whoever reserved it (one
// reservation) and spends it whole to addr at satPerVByte with withdraw,
// as another program of the node's wallet might; it returns the
// transaction id. The transaction is in the mempool.
func (n *CLNNode) TakeCoin(ctx context.Context, c Coin, addr string, satPerVByte int64) (string, error) {
	p, err := inputsPSBT([]string{c.Outpoint})
	if err != nil {
		return "", err
	}
	if err := n.Call(ctx, nil, "unreserveinputs", map[string]any{"psbt": p}); err != nil {
		return "", fmt.Errorf("releasing %s: %w", c.Outpoint, err)
	}
	var res struct {
		TxID string `json:"txid"`
	}
	err = n.Call(ctx, &res, "withdraw", map[string]any{"destination": addr, "satoshi": "all",
		"feerate": strconv.FormatInt(satPerVByte*1000, 10) + "perkb", "minconf": 0, "utxos": []string{c.Outpoint}})
	if err != nil {
		return "", fmt.Errorf("spending %s: %w", c.Outpoint, err)
	}
	if res.TxID == "" {
		return "", errors.New("withdraw answered no txid")
	}
	return res.TxID, nil
}

// PauseGossip stops the node's gossipd (SIGSTOP) until the function it
// returns resumes it (SIGCONT). lightningd's getinfo reports the block
// height gossipd has acknowledged, while the chain's tip (waitblockheight,
// the wallet) moves on without it: paused, the two part for as long as a
// test needs. Heights read with getinfo (WaitHeight, Mine) wait for the
// resumption.
func (n *CLNNode) PauseGossip() (resume func() error, err error) {
	p := n.proc()
	if p == nil || p.cmd == nil || !p.running() {
		return nil, fmt.Errorf("lightningd %s is not running", n.Name)
	}
	pid, err := childNamed(p.cmd.Process.Pid, "lightning_gossipd")
	if err != nil {
		return nil, fmt.Errorf("lightningd %s: %w", n.Name, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, fmt.Errorf("stopping gossipd: %w", err)
	}
	resumed := false
	return func() error {
		if resumed {
			return nil
		}
		resumed = true
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			return fmt.Errorf("resuming gossipd: %w", err)
		}
		return nil
	}, nil
}

// childNamed finds the child of the process parent that runs the program
// name (/proc).
func childNamed(parent int, name string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		if f := strings.Fields(string(stat[i+1:])); len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		if filepath.Base(string(argv0)) == name {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no %s child of process %d", name, parent)
}

// MempoolFee is the fee, in satoshis, of the transaction txid in the
// mempool, as bitcoind measures it.
func (b *Bitcoind) MempoolFee(ctx context.Context, txid string) (int64, error) {
	var entry struct {
		Fees struct {
			Base json.Number `json:"base"`
		} `json:"fees"`
	}
	if err := b.Call(ctx, &entry, "getmempoolentry", txid); err != nil {
		return 0, err
	}
	f, err := entry.Fees.Base.Float64()
	var btc btcutil.Amount
	if err == nil {
		btc, err = btcutil.NewAmount(f)
	}
	if err != nil {
		return 0, fmt.Errorf("bitcoind's fee %q: %w", entry.Fees.Base, err)
	}
	return int64(btc), nil
}

// PresignSpend signs, without publishing, a spend of the whole coin
// (outpoint) to addr at satPerVByte, as another program of the node's
// wallet might (txprepare on that coin, signpsbt, dev-finalizepsbt), and
// frees the coin again (unreserveinputs): the transaction can be broadcast
// later (Bitcoind.SendRaw), whoever holds the coin in lightningd by then.
// It returns the raw transaction, hex, and its id.
func (n *CLNNode) PresignSpend(ctx context.Context, outpoint, addr string, satPerVByte int64) (rawTx, txid string, err error) {
	var prepared struct {
		PSBT string `json:"psbt"`
	}
	err = n.Call(ctx, &prepared, "txprepare", map[string]any{"outputs": []map[string]string{{addr: "all"}},
		"feerate": strconv.FormatInt(satPerVByte*1000, 10) + "perkb", "minconf": 0, "utxos": []string{outpoint}})
	if err != nil {
		return "", "", fmt.Errorf("preparing a spend of %s: %w", outpoint, err)
	}
	defer func() {
		if uerr := n.Call(context.WithoutCancel(ctx), nil, "unreserveinputs", map[string]any{"psbt": prepared.PSBT}); uerr != nil {
			err = errors.Join(err, fmt.Errorf("freeing %s: %w", outpoint, uerr))
		}
	}()
	var signed struct {
		SignedPSBT string `json:"signed_psbt"`
	}
	if err := n.Call(ctx, &signed, "signpsbt", map[string]any{"psbt": prepared.PSBT}); err != nil {
		return "", "", fmt.Errorf("signing a spend of %s: %w", outpoint, err)
	}
	var final struct {
		Tx   string `json:"tx"`
		TxID string `json:"txid"`
	}
	if err := n.Call(ctx, &final, "dev-finalizepsbt", map[string]any{"psbt": signed.SignedPSBT}); err != nil {
		return "", "", fmt.Errorf("finalizing a spend of %s: %w", outpoint, err)
	}
	return final.Tx, final.TxID, nil
}

// SendRaw broadcasts the raw transaction rawTx (hex) and returns its id.
func (b *Bitcoind) SendRaw(ctx context.Context, rawTx string) (string, error) {
	var txid string
	err := b.Call(ctx, &txid, "sendrawtransaction", rawTx)
	return txid, err
}
