package cln_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// Addresses from newaddr, deposits from listtransactions once mined, new
// blocks from waitblockheight.
func TestChainWallet(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	segwit, err := n.NewAddress(ctx, ledger.P2WPKH)
	if err != nil || !strings.HasPrefix(segwit, "bcrt1q") {
		t.Fatalf("p2wpkh = %q %v", segwit, err)
	}
	taproot, err := n.NewAddress(ctx, ledger.P2TR)
	if err != nil || !strings.HasPrefix(taproot, "bcrt1p") {
		t.Fatalf("p2tr = %q %v", taproot, err)
	}
	for _, typ := range []ledger.AddressType{ledger.P2SH, ledger.P2PKH} {
		if _, err := n.NewAddress(ctx, typ); !errors.Is(err, ledger.ErrUnsupportedAddressType) {
			t.Fatalf("%s: %v", typ, err)
		}
	}

	events, err := n.SubscribeChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txid, err := d.Deposit(taproot, 40_000)
	if err != nil {
		t.Fatal(err)
	}
	if _, txs, err := n.ChainTransactions(ctx, 701); err != nil || len(txs) != 0 {
		t.Fatalf("before it is mined: %+v %v", txs, err)
	}
	d.MineBlocks(3)
	select {
	case ev := <-events:
		if ev.Height != 803 || ev.Tx != nil {
			t.Fatalf("event = %+v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no block event")
	}
	tip, txs, err := n.ChainTransactions(ctx, 801)
	if err != nil || tip != 803 || len(txs) != 1 {
		t.Fatalf("transactions = %d %+v %v", tip, txs, err)
	}
	tx := txs[0]
	if tx.TxID != txid || tx.BlockHeight != 801 || tx.Confirmations != 3 || len(tx.Outputs) != 1 ||
		tx.Outputs[0] != (ledger.ChainOutput{Vout: 0, Address: taproot, AmountSat: 40_000}) {
		t.Fatalf("deposit = %+v", tx)
	}
	if _, txs, _ := n.ChainTransactions(ctx, 802); len(txs) != 0 {
		t.Fatalf("from above its block: %+v", txs)
	}
	if got, err := n.LookupChainTx(ctx, txid); err != nil || got.TxID != txid {
		t.Fatalf("lookup = %+v %v", got, err)
	}
	if _, err := n.LookupChainTx(ctx, strings.Repeat("00", 32)); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("lookup of another tx: %v", err)
	}
}

// realBackend is the backend on Hearth's lightningd of the package's real
// Core Lightning network.
func realBackend(t *testing.T) (*cln.Node, *regtest.CLNNetwork) {
	t.Helper()
	net := network.Get(t)
	n, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, net
}

// On a real lightningd: the address types it makes, and the clear refusal
// of the others; a deposit not listed while in the mempool (lightningd's
// wallet learns of it from its block), then listed with its block and its
// confirmations, and looked up.
func TestRealChainWallet(t *testing.T) {
	n, net := realBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	segwit, err := n.NewAddress(ctx, ledger.P2WPKH)
	if err != nil || !strings.HasPrefix(segwit, "bcrt1q") {
		t.Fatalf("p2wpkh = %q %v", segwit, err)
	}
	taproot, err := n.NewAddress(ctx, ledger.P2TR)
	if err != nil || !strings.HasPrefix(taproot, "bcrt1p") {
		t.Fatalf("p2tr = %q %v", taproot, err)
	}
	for _, typ := range []ledger.AddressType{ledger.P2SH, ledger.P2PKH} {
		if _, err := n.NewAddress(ctx, typ); !errors.Is(err, ledger.ErrUnsupportedAddressType) {
			t.Fatalf("%s: %v", typ, err)
		}
	}
	txid, err := net.LND.SendCoins(ctx, taproot, 40_000)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := net.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.LookupChainTx(ctx, txid); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a deposit in the mempool: %v", err)
	}
	if err := net.Mine(ctx, 3); err != nil {
		t.Fatal(err)
	}
	got, txs, err := n.ChainTransactions(ctx, tip+1)
	if err != nil || got != tip+3 {
		t.Fatalf("tip %d, %v; want %d", got, err, tip+3)
	}
	var dep *ledger.ChainTx
	for _, tx := range txs {
		if tx.TxID == txid {
			dep = &tx
		}
	}
	if dep == nil || dep.BlockHeight != tip+1 || dep.Confirmations != 3 || output(*dep, taproot) != 40_000 {
		t.Fatalf("deposit = %+v in %+v", dep, txs)
	}
	if got, err := n.LookupChainTx(ctx, txid); err != nil || got.BlockHeight != tip+1 || got.Confirmations != 3 {
		t.Fatalf("lookup = %+v %v", got, err)
	}
}

// output is what tx pays addr.
func output(tx ledger.ChainTx, addr string) int64 {
	var sat int64
	for _, o := range tx.Outputs {
		if o.Address == addr {
			sat += o.AmountSat
		}
	}
	return sat
}

// Every block SubscribeChain announces is the tip ChainTransactions reads
// at once, and a deposit's confirmations count from it. lightningd's
// getinfo reports the height gossipd has acknowledged, which trails the
// chain's (gossipd paused here, for as long as the test needs; a busy
// machine parts them for a moment): read from getinfo, a deposit read
// when the block of its second confirmation was announced had one, and
// was credited a block late.
func TestRealChainTip(t *testing.T) {
	n, net := realBackend(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr, err := n.NewAddress(ctx, ledger.P2WPKH)
	if err != nil {
		t.Fatal(err)
	}
	miner, err := net.LND.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txid, err := net.LND.SendCoins(ctx, addr, 25_000)
	if err != nil {
		t.Fatal(err)
	}
	start, err := net.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	events, err := n.SubscribeChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resume, err := net.Hearth.PauseGossip()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := resume(); err != nil {
			t.Error(err)
		}
		if err := net.WaitHeight(ctx, start+2); err != nil {
			t.Error(err)
		}
	}()
	for confs := int64(1); confs <= 2; confs++ {
		if _, err := net.Bitcoind.GenerateTo(ctx, 1, miner); err != nil {
			t.Fatal(err)
		}
		for ev := range events {
			if ev.Height >= start+confs {
				break
			}
		}
		tip, txs, err := n.ChainTransactions(ctx, start+1)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for _, tx := range txs {
			if tx.TxID == txid {
				got = tx.Confirmations
			}
		}
		if tip != start+confs || got != confs {
			t.Fatalf("block %d announced: tip %d, the deposit mined at %d has %d confirmations", start+confs, tip, start+1, got)
		}
	}
}
