package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// A Hearth on LND killed with SIGKILL between an internal payment and the
// cancel of the payee's invoice at the node (the node was down, so the
// cancel could not have happened) withdraws the invoice after it starts
// again: the node, back, holds it open until then, and cancelled after.
// Not parallel: it stops the network's Hearth node, which the parallel
// tests use. SQLite, then PostgreSQL.
func TestKilledBeforeTheWithdrawalWithdrawsAfterRestart(t *testing.T) {
	net := network.Get(t)
	ctx := context.Background()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			environ := []string{
				"HEARTH_DATA_DIR=" + t.TempDir(),
				"HEARTH_NODE_BACKEND=lnd",
				"HEARTH_NODE_LND_ADDRESS=" + net.Hearth.RPCAddress,
				"HEARTH_NODE_LND_TLS_CERT=" + net.Hearth.TLSCertPath(),
				"HEARTH_NODE_LND_MACAROON=" + net.Hearth.MacaroonPath(),
			}
			if db == "postgres" {
				environ = append(environ, "HEARTH_DATABASE_URL="+storetest.EmptySchemaURL(t))
			}
			first, c := serveProcess(t, environ)
			token := signUp(t, c)
			payer, payee := createWallet(t, c, token, "payer"), createWallet(t, c, token, "payee")
			funding, _ := createInvoiceHash(t, c, token, payer, 200_000)
			if _, err := net.Peer.Pay(ctx, funding, 10_000); err != nil {
				t.Fatal(err)
			}
			poll.Until(t, 30*time.Second, func() error {
				if got := available(c, token, payer); got != 200_000 {
					return fmt.Errorf("payer holds %d", got)
				}
				return nil
			})
			bolt11, hash := createInvoiceHash(t, c, token, payee, 80_000)

			net.Hearth.Kill()
			t.Cleanup(func() { net.Hearth.Restart(ctx) }) //nolint:errcheck // running already when the test went on
			var pay struct{ Status, Ledger string }
			c.decode(c.expect(c.call("POST", "/v1/payments", fmt.Sprintf(`{"wallet_id":%q,"input":%q}`, payer, bolt11), token), 201), &pay)
			if pay.Status != "Settled" || pay.Ledger != "Internal" {
				t.Fatalf("payment while the node is down = %+v", pay)
			}
			first.kill()
			if err := net.Hearth.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			if state, err := net.Hearth.InvoiceState(ctx, hash); state != "OPEN" {
				t.Fatalf("the node's invoice after the kill is %s (%v), want OPEN", state, err)
			}

			_, c = serveProcess(t, environ)
			if err := net.Hearth.WaitInvoiceState(ctx, hash, "CANCELED"); err != nil {
				t.Fatalf("the node's invoice after the restart: %v", err)
			}
			if _, err := net.Peer.Pay(ctx, bolt11, 10_000); err == nil {
				t.Fatal("the peer paid an invoice settled inside the instance")
			}
			if got := available(c, token, payee); got != 80_000 {
				t.Fatalf("payee holds %d, want 80000", got)
			}
		})
	}
}

// createInvoiceHash makes an invoice of walletID and returns its text and
// payment hash.
func createInvoiceHash(t *testing.T, c *client, token, walletID string, msat int64) (bolt11, hash string) {
	t.Helper()
	var inv struct {
		LnInvoice struct {
			Bolt11      string `json:"bolt11"`
			PaymentHash string `json:"payment_hash"`
		} `json:"ln_invoice"`
	}
	c.decode(c.expect(c.call("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, walletID, msat), token), 201), &inv)
	if inv.LnInvoice.PaymentHash == "" || inv.LnInvoice.Bolt11 == "" {
		t.Fatalf("invoice without a hash or text: %+v", inv)
	}
	return inv.LnInvoice.Bolt11, inv.LnInvoice.PaymentHash
}

// available is what walletID holds.
func available(c *client, token, walletID string) int64 {
	var w struct {
		Balance struct {
			AvailableMsat int64 `json:"available_msat"`
		} `json:"balance"`
	}
	c.decode(c.expect(c.call("GET", "/v1/wallets/"+walletID, "", token), 200), &w)
	return w.Balance.AvailableMsat
}
