package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
)

// `hearth serve` on lnd holds a payment to a hold invoice across a kill -9
// (holdAcrossAKill): the peer pays, lnd holds the HTLC. On both databases.
//
// Not in parallel: TestServeWithLND kills and restarts the network's
// Hearth node, and a hold invoice made meanwhile fails at the node.
func TestHoldInvoiceSurvivesAKill(t *testing.T) {
	net := network.Get(t)
	databases(t, func(t *testing.T, environ []string) {
		environ = append(environ, "HEARTH_NODE_BACKEND=lnd",
			"HEARTH_NODE_LND_ADDRESS="+net.Hearth.RPCAddress,
			"HEARTH_NODE_LND_TLS_CERT="+net.Hearth.TLSCertPath(),
			"HEARTH_NODE_LND_MACAROON="+net.Hearth.MacaroonPath())
		pay := func(ctx context.Context, bolt11 string) error {
			_, err := net.Peer.Pay(ctx, bolt11, 10_000)
			return err
		}
		holdAcrossAKill(t, environ, pay, func(context.Context, string) {})
	})
}

// holdAcrossAKill: a hold invoice of 30,000 msat that pay pays from
// outside is Accepted with a settle_deadline; `hearth serve` is killed
// with SIGKILL (whileDown then checks the node, given the payment hash);
// started again, Hearth still has it Accepted, and settling it pays the
// owner once, the payer's payment succeeding with the preimage; `ledger
// check --node` finds the books and the node agree.
func holdAcrossAKill(t *testing.T, environ []string, pay func(ctx context.Context, bolt11 string) error, whileDown func(ctx context.Context, hash string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	server, c := serveProcess(t, environ)
	token := signUp(t, c)
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw[:])
	preimage, hash := hex.EncodeToString(raw[:]), hex.EncodeToString(sum[:])
	var inv struct {
		ID        string `json:"id"`
		Status    string `json:"status"`
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
		SettleDeadline *int64 `json:"settle_deadline"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/hold-invoices",
		fmt.Sprintf(`{"amount_msat":30000,"payment_hash":%q,"min_final_cltv_expiry_delta":40}`, hash), token), 201), &inv)
	paid := make(chan error, 1)
	go func() { paid <- pay(ctx, inv.LnInvoice.Bolt11) }()
	accepted := func(c *client) {
		t.Helper()
		poll.Until(t, time.Minute, func() error {
			c.decode(c.expect(c.call("GET", "/v1/me/invoices/"+inv.ID, "", token), 200), &inv)
			if inv.Status != "Accepted" || inv.SettleDeadline == nil {
				return fmt.Errorf("invoice %s", inv.Status)
			}
			return nil
		})
	}
	accepted(c)

	server.kill()
	whileDown(ctx, hash)
	server, c = serveProcess(t, environ)
	restarted := server
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the restarted server's output:\n%s", restarted.out)
		}
	})
	accepted(c)
	c.decode(c.expect(c.call("POST", "/v1/me/invoices/"+inv.ID+"/settle", fmt.Sprintf(`{"preimage":%q}`, preimage), token), 200), &inv)
	if inv.Status != "Settled" {
		t.Fatalf("settled after the restart: %+v", inv)
	}
	select {
	case err := <-paid:
		if err != nil {
			t.Fatalf("the payer's payment: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the payer's payment did not end")
	}
	var bal struct {
		AvailableMsat int64 `json:"available_msat"`
		ReceivedMsat  int64 `json:"received_msat"`
	}
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &bal)
	if bal.AvailableMsat != 30_000 || bal.ReceivedMsat != 30_000 {
		t.Fatalf("balance after settling: %+v", bal)
	}
	server.kill()
	check := newSyncWriter()
	if err := run(ctx, []string{"ledger", "check", "--node"}, check, environ); err != nil {
		t.Fatalf("ledger check --node: %v\n%s", err, check)
	}
}
