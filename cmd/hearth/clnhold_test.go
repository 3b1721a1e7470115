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

// TestHoldInvoiceSurvivesAKillOnCLN is TestHoldInvoiceSurvivesAKill on a
// real lightningd: the outside lnd pays a hold invoice of Hearth's, the
// guard plugin holds the HTLC in lightningd's htlc_accepted hook and the
// books say Accepted. `hearth serve` is killed with SIGKILL; the plugin,
// lightningd's child, runs on and still holds the HTLC. Started again,
// Hearth still has the invoice Accepted, and settling it then pays the
// owner once, lnd's payment succeeding. On both databases.
//
// Not in parallel, as TestHoldInvoiceSurvivesAKill and the other tests on
// the shared Core Lightning network are not.
func TestHoldInvoiceSurvivesAKillOnCLN(t *testing.T) {
	net := clnNetwork.Get(t)
	databases(t, func(t *testing.T, environ []string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		environ = append(environ, "HEARTH_NODE_BACKEND=cln", "HEARTH_NODE_CLN_RPC_FILE="+net.Hearth.RPCPath(), "HEARTH_NODE_CLN_GUARD_PLUGIN="+net.GuardPlugin)
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
		go func() {
			_, err := net.LND.Pay(ctx, inv.LnInvoice.Bolt11, 10_000)
			paid <- err
		}()
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
		// Hearth is gone; the plugin in lightningd still holds the HTLC.
		var st struct {
			State   string `json:"state"`
			Refused string `json:"refused"`
		}
		if err := net.Hearth.Call(ctx, &st, "hearth-holdwait", map[string]any{"payment_hash": hash}); err != nil || st.State != "accepted" {
			t.Fatalf("the guard plugin after Hearth's kill: %+v (%v)", st, err)
		}

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
				t.Fatalf("lnd's payment: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("lnd's payment did not end")
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
	})
}
