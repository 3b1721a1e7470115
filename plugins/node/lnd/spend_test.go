package lnd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/btcsuite/btcd/wire"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/internal/poll"
)

// A spend prepared (coins leased, signed, not published, its exact fee
// known), published, and confirmed; a prepared spend released; the
// refusals: no funds, another network's address; a transaction the
// network refuses is a definite failure. No lease is left behind.
func TestSpend(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	leases := func() int {
		t.Helper()
		n, err := net.Hearth.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := leases()
	to, err := net.Peer.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}

	sp, err := h.node.PrepareSpend(ctx, "spend-1", ledger.SpendRequest{Address: to, AmountSat: 75_000, SatPerVByte: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sp.FeeSat <= 0 || sp.FeeSat > 3*400 || sp.AmountSat != 75_000 || sp.Address != to || len(sp.TxID) != 64 {
		t.Fatalf("prepared = %+v", sp)
	}
	if leases() <= base {
		t.Fatal("a prepared spend leased no coin")
	}
	if _, err := h.node.LookupChainTx(ctx, sp.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("an unpublished spend is known: %v", err)
	}
	if err := h.node.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	if err := h.node.PublishSpend(ctx, sp); err != nil {
		t.Fatalf("publishing again: %v", err)
	}
	got, err := h.node.LookupChainTx(ctx, sp.TxID)
	if err != nil || got.Confirmations != 0 || got.FeeSat != sp.FeeSat {
		t.Fatalf("published = %+v, %v (fee prepared %d)", got, err, sp.FeeSat)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		got, err := h.node.LookupChainTx(ctx, sp.TxID)
		if err == nil && (got.Confirmations != 1 || got.BlockHeight == 0 || got.FeeSat != sp.FeeSat || output(*got, to) != 75_000) {
			err = fmt.Errorf("confirmed = %+v", got)
		}
		return err
	})

	// Prepared, then released: nothing leased, nothing published.
	sp2, err := h.node.PrepareSpend(ctx, "spend-2", ledger.SpendRequest{Address: to, AmountSat: 10_000, TargetConf: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-2"); err != nil {
		t.Fatal(err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-2"); err != nil {
		t.Fatalf("releasing again: %v", err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left, %d before", n, base)
	}
	if _, err := h.node.LookupChainTx(ctx, sp2.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a released spend is known: %v", err)
	}

	// Refusals, with nothing leased.
	if _, err := h.node.PrepareSpend(ctx, "spend-3", ledger.SpendRequest{Address: to, AmountSat: 100 * 100_000_000}); !errors.Is(err, ledger.ErrNoChainFunds) {
		t.Fatalf("over the wallet's funds: %v", err)
	}
	mainnet := "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"
	if _, err := h.node.PrepareSpend(ctx, "spend-4", ledger.SpendRequest{Address: mainnet, AmountSat: 10_000}); !errors.Is(err, ledger.ErrInvalidAddress) {
		t.Fatalf("a mainnet address: %v", err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left after refusals, %d before", n, base)
	}

	// A transaction the network refuses (its signature broken; the
	// witness is not part of the txid): a definite failure, unknown to
	// the wallet, and its coins free once released.
	sp5, err := h.node.PrepareSpend(ctx, "spend-5", ledger.SpendRequest{Address: to, AmountSat: 20_000, SatPerVByte: 2})
	if err != nil {
		t.Fatal(err)
	}
	var tx wire.MsgTx
	if err := tx.Deserialize(bytes.NewReader(sp5.RawTx)); err != nil {
		t.Fatal(err)
	}
	sig := tx.TxIn[0].Witness[0]
	sig[len(sig)/2] ^= 0xff
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	bad := *sp5
	bad.RawTx = buf.Bytes()
	var failure *ledger.PaymentFailure
	if err := h.node.PublishSpend(ctx, &bad); !errors.As(err, &failure) {
		t.Fatalf("a broken transaction: %v", err)
	}
	if _, err := h.node.LookupChainTx(ctx, sp5.TxID); !errors.Is(err, ledger.ErrUnknownChainTx) {
		t.Fatalf("a refused spend is known: %v", err)
	}
	if err := h.node.ReleaseSpend(ctx, "spend-5"); err != nil {
		t.Fatal(err)
	}
	if n := leases(); n != base {
		t.Fatalf("%d leases left at the end, %d before", n, base)
	}
}
