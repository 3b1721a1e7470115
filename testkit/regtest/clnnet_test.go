package regtest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/testkit/regtest"
)

var clnNetwork regtest.SharedCLN

func TestMain(m *testing.M) {
	code := m.Run()
	clnNetwork.Close()
	os.Exit(code)
}

// TestCLNNetworkPaysAcross checks the Core Lightning network's promise:
// Hearth's lightningd pays and is paid by the outside lightningd and the
// outside lnd, each through its channel, on one chain.
func TestCLNNetworkPaysAcross(t *testing.T) {
	net := clnNetwork.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Core Lightning to lnd, and lnd to Core Lightning.
	bolt11, _, err := net.LND.AddInvoice(ctx, 21_000, "cln to lnd")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Hearth.Pay(ctx, bolt11, 1_000); err != nil {
		t.Fatalf("lightningd pays lnd: %v", err)
	}
	bolt11, hash, err := net.Hearth.Invoice(ctx, 22_000, "from-lnd", "lnd to cln")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.LND.Pay(ctx, bolt11, 1_000); err != nil {
		t.Fatalf("lnd pays lightningd: %v", err)
	}
	if s, err := net.Hearth.InvoiceStatus(ctx, hash); err != nil || s != "paid" {
		t.Fatalf("Hearth's invoice paid by lnd: %q %v", s, err)
	}

	// Between the two lightningd.
	bolt11, _, err = net.Peer.Invoice(ctx, 23_000, "to-peer", "cln to cln")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Hearth.Pay(ctx, bolt11, 1_000); err != nil {
		t.Fatalf("lightningd pays the other: %v", err)
	}
	bolt11, hash, err = net.Hearth.Invoice(ctx, 24_000, "from-peer", "cln to cln")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Peer.Pay(ctx, bolt11, 1_000); err != nil {
		t.Fatalf("the other lightningd pays Hearth's: %v", err)
	}
	if s, err := net.Hearth.InvoiceStatus(ctx, hash); err != nil || s != "paid" {
		t.Fatalf("Hearth's invoice paid by the other lightningd: %q %v", s, err)
	}

	// One chain: a block mined reaches all three.
	before, err := net.Bitcoind.Height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatalf("after block %d: %v", before+1, err)
	}
}

// TestCLNNodeRestarts checks that Hearth's lightningd, killed and
// restarted, pays and is paid again through both channels.
func TestCLNNodeRestarts(t *testing.T) {
	net := clnNetwork.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	net.Hearth.Kill()
	if err := net.Hearth.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := net.WaitRoutable(ctx); err != nil {
		t.Fatal(err)
	}
	bolt11, _, err := net.Hearth.Invoice(ctx, 25_000, "after-restart", "lnd to cln")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.LND.Pay(ctx, bolt11, 1_000); err != nil {
		t.Fatalf("lnd pays lightningd after its restart: %v (%s)", err, net.Dir)
	}
}
