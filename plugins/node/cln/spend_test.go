package cln_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
)

// A spend is prepared (coins reserved, signed, its exact fee measured),
// released, prepared again and published; it is listed unconfirmed, then
// confirmed. A broadcast the network refuses is a definite failure; an
// address of another network, an amount the wallet cannot afford, are
// refused before anything is reserved.
func TestSpend(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()
	dest := "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
	req := ledger.SpendRequest{Address: dest, AmountSat: 100_000, SatPerVByte: 10}

	sp, err := n.PrepareSpend(ctx, "estimate", req)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.TxID) != 64 || sp.RawTx != nil {
		t.Fatalf("txid %q, raw tx %x", sp.TxID, sp.RawTx)
	}
	// One input, the payment and change: 11 + 68 + 2*43 vbytes at 10 sat/vB.
	if sp.FeeSat != 1_650 || sp.AmountSat != 100_000 || sp.Address != dest || d.Reserved() != 1 {
		t.Fatalf("prepared = %+v, %d reserved", sp, d.Reserved())
	}
	if err := n.ReleaseSpend(ctx, "estimate"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release: %v, %d reserved", err, d.Reserved())
	}
	if err := n.ReleaseSpend(ctx, "never prepared"); err != nil {
		t.Fatal(err)
	}

	sp, err = n.PrepareSpend(ctx, "pay", ledger.SpendRequest{Address: dest, AmountSat: 100_000, TargetConf: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.PublishSpend(ctx, sp); err != nil {
		t.Fatal(err)
	}
	got, err := n.LookupChainTx(ctx, sp.TxID)
	if err != nil || got.Confirmations != 0 || got.BlockHeight != 0 {
		t.Fatalf("published: %+v %v", got, err)
	}
	d.MineBlocks(1)
	if got, err = n.LookupChainTx(ctx, sp.TxID); err != nil || got.Confirmations != 1 || got.BlockHeight != 801 {
		t.Fatalf("mined: %+v %v", got, err)
	}
	if err := n.ReleaseSpend(ctx, "pay"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release after publication: %v, %d reserved", err, d.Reserved())
	}

	refused, err := n.PrepareSpend(ctx, "refused", req)
	if err != nil {
		t.Fatal(err)
	}
	d.RefuseNextBroadcast("min relay fee not met")
	var pf *ledger.PaymentFailure
	if err := n.PublishSpend(ctx, refused); !errors.As(err, &pf) {
		t.Fatalf("refused broadcast: %v", err)
	}
	if err := n.ReleaseSpend(ctx, "refused"); err != nil || d.Reserved() != 0 {
		t.Fatalf("release after refusal: %v, %d reserved", err, d.Reserved())
	}

	if _, err := n.PrepareSpend(ctx, "x", ledger.SpendRequest{Address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", AmountSat: 1_000}); !errors.Is(err, ledger.ErrInvalidAddress) {
		t.Fatalf("mainnet address: %v", err)
	}
	if _, err := n.PrepareSpend(ctx, "x", ledger.SpendRequest{Address: dest, AmountSat: 300_000_000}); !errors.Is(err, ledger.ErrNoChainFunds) || d.Reserved() != 0 {
		t.Fatalf("too much: %v, %d reserved", err, d.Reserved())
	}
}
