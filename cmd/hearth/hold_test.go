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

// `hearth serve` on lnd holds a payment to a hold invoice across a kill -9:
// the peer pays, lnd holds the HTLC, the books say Accepted; Hearth is
// killed and started again, and settling then pays the owner, the peer's
// payment succeeding with the preimage. On both databases.
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
		p, c := serveProcess(t, environ)
		var tok struct {
			Token string `json:"token"`
		}
		c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)

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
			fmt.Sprintf(`{"amount_msat":30000,"payment_hash":%q,"min_final_cltv_expiry_delta":40}`, hash), tok.Token), 201), &inv)
		paid := make(chan error, 1)
		go func() {
			_, err := net.Peer.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000)
			paid <- err
		}()
		accepted := func(c *client) {
			t.Helper()
			poll.Until(t, 60*time.Second, func() error {
				c.decode(c.expect(c.call("GET", "/v1/me/invoices/"+inv.ID, "", tok.Token), 200), &inv)
				if inv.Status != "Accepted" || inv.SettleDeadline == nil {
					return fmt.Errorf("invoice %s", inv.Status)
				}
				return nil
			})
		}
		accepted(c)

		p.kill()
		_, c = serveProcess(t, environ)
		accepted(c)
		c.decode(c.expect(c.call("POST", "/v1/me/invoices/"+inv.ID+"/settle", fmt.Sprintf(`{"preimage":%q}`, preimage), tok.Token), 200), &inv)
		if inv.Status != "Settled" {
			t.Fatalf("settled after the restart: %+v", inv)
		}
		select {
		case err := <-paid:
			if err != nil {
				t.Fatalf("the peer's payment: %v", err)
			}
		case <-time.After(90 * time.Second):
			t.Fatal("the peer's payment did not end")
		}
		var bal struct {
			AvailableMsat int64 `json:"available_msat"`
		}
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
		if bal.AvailableMsat != 30_000 {
			t.Fatalf("balance after settling: %d", bal.AvailableMsat)
		}
	})
}
