package lnd_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

func TestNodeInfo(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	ctx := context.Background()
	info, err := h.node.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Backend != "lnd" || info.Network != "regtest" || info.Pubkey != net.Hearth.Pubkey ||
		info.Channels != 1 || !info.ExternalPayments || info.LocalMsat <= 0 || info.RemoteMsat <= 0 || info.BlockHeight < 500 {
		t.Fatalf("info = %+v", info)
	}
	if hash, err := net.BlockHash(int64(info.BlockHeight)); err != nil || info.BlockHash != hash {
		t.Fatalf("the node's best block %q, the chain's at height %d %q (%v)", info.BlockHash, info.BlockHeight, hash, err)
	}
	if err := h.node.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
}

func TestInvoiceWithDescriptionHash(t *testing.T) {
	net := network.Get(t)
	h := newHearth(t, net, storetest.SQLite(t))
	hash := sha256.Sum256([]byte(`[["text/plain","zap"]]`))
	inv, err := h.node.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 21_000, DescriptionHash: hash[:], Expiry: 3600e9})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := h.node.Decode(inv.Bolt11)
	if err != nil {
		t.Fatal(err)
	}
	if dec.DescriptionHash != hex.EncodeToString(hash[:]) || dec.Description != "" || dec.AmountMsat != 21_000 ||
		dec.PaymentHash != inv.PaymentHash || dec.PayeePubkey != net.Hearth.Pubkey {
		t.Fatalf("decoded = %+v, invoice = %+v", dec, inv)
	}
	pre, _ := hex.DecodeString(inv.Preimage)
	if sum := sha256.Sum256(pre); hex.EncodeToString(sum[:]) != inv.PaymentHash {
		t.Fatal("the preimage does not hash to the payment hash")
	}
}
