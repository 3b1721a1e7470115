package cln_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
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
