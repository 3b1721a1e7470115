package lnd_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// Each address type LND makes, and its refusal of P2PKH.
func TestNewAddress(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx := context.Background()
	prefixes := map[ledger.AddressType]string{ledger.P2WPKH: "bcrt1q", ledger.P2SH: "2", ledger.P2TR: "bcrt1p"}
	for typ, prefix := range prefixes {
		a, err := h.node.NewAddress(ctx, typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		b, err := h.node.NewAddress(ctx, typ)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(a, prefix) || a == b {
			t.Errorf("%s addresses %q, %q", typ, a, b)
		}
	}
	if _, err := h.node.NewAddress(ctx, ledger.P2PKH); !errors.Is(err, ledger.ErrUnsupportedAddressType) {
		t.Fatalf("p2pkh: %v", err)
	}
}

// A payment to a wallet address shows in the stream and the list,
// unconfirmed, then confirmed at the block that mined it; each new block
// shows in the stream.
func TestChainTransactions(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr, err := h.node.NewAddress(ctx, ledger.P2TR)
	if err != nil {
		t.Fatal(err)
	}
	events, err := h.node.SubscribeChain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip, _, err := h.node.ChainTransactions(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	txid, err := net.Peer.SendCoins(ctx, addr, 123_456)
	if err != nil {
		t.Fatal(err)
	}
	// The stream tells of the transaction, unconfirmed.
	waitEvent(t, events, func(ev ledger.ChainEvent) bool { return ev.Tx != nil && ev.Tx.TxID == txid })
	var found ledger.ChainTx
	poll.Until(t, 30*time.Second, func() error {
		_, txs, err := h.node.ChainTransactions(ctx, tip+1)
		if err != nil {
			return err
		}
		for _, tx := range txs {
			if tx.TxID == txid {
				found = tx
				return nil
			}
		}
		return fmt.Errorf("transaction %s not listed", txid)
	})
	if found.BlockHeight != 0 || found.Confirmations != 0 || output(found, addr) != 123_456 {
		t.Fatalf("unconfirmed = %+v", found)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, func(ev ledger.ChainEvent) bool { return ev.Height == tip+1 })
	poll.Until(t, 30*time.Second, func() error {
		newTip, txs, err := h.node.ChainTransactions(ctx, tip+1)
		if err != nil {
			return err
		}
		for _, tx := range txs {
			if tx.TxID == txid && tx.Confirmations == 1 && tx.BlockHeight == tip+1 && newTip == tip+1 {
				return nil
			}
		}
		return fmt.Errorf("transaction %s not confirmed at %d (tip %d): %+v", txid, tip+1, newTip, txs)
	})
}

// output returns what tx pays addr.
func output(tx ledger.ChainTx, addr string) int64 {
	for _, o := range tx.Outputs {
		if o.Address == addr {
			return o.AmountSat
		}
	}
	return 0
}

// waitEvent reads events until one matches, for up to 30 seconds.
func waitEvent(t *testing.T, events <-chan ledger.ChainEvent, match func(ledger.ChainEvent) bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the chain stream closed")
			}
			if match(ev) {
				return
			}
		case <-timeout:
			t.Fatal("no matching chain event within 30s")
		}
	}
}
