package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg"

	"github.com/hearthwallet/hearth/lib/bolt11"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
)

// `hearth serve` with node.backend = "cln" against the Core Lightning
// double: health reports the node (503 while it is down), the node info,
// invoices paid by the peer (one through the Lightning Address, committing
// to its metadata's hash) and payments to it over HTTP, and on-chain
// deposits and payments.
func TestServeWithCLN(t *testing.T) {
	t.Parallel()
	double := clntest.Start(t)
	environ := []string{
		"HEARTH_LISTEN=127.0.0.1:0",
		"HEARTH_DATA_DIR=" + t.TempDir(),
		"HEARTH_NODE_BACKEND=cln",
		"HEARTH_NODE_CLN_RPC_FILE=" + double.Path(),
		"HEARTH_NODE_CLN_GUARD=off", // the double runs no plugins
		"HEARTH_DOMAIN=hearth.test",
		"HEARTH_PUBLIC_URL=https://hearth.test",
	}
	out := newSyncWriter()
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		runErr = run(ctx, []string{"serve"}, out, environ)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	m, err := out.waitFor(listeningRE, stopped, 30*time.Second)
	if err != nil {
		t.Fatalf("%v; run error %v; output:\n%s", err, runErrIfStopped(stopped, &runErr), out)
	}
	c := &client{t: t, base: m[1], http: &http.Client{Timeout: 30 * time.Second}}
	defer c.http.CloseIdleConnections()

	c.expectJSON(c.call("GET", "/v1/system/health", "", ""), 200,
		map[string]any{"database": "Operational", "ln_provider": "Operational", "is_healthy": true})
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	var info struct {
		Backend, Pubkey, Network string
		Channels                 int
	}
	c.decode(c.expect(c.call("GET", "/v1/lightning-node/info", "", tok.Token), 200), &info)
	if info.Backend != "cln" || info.Pubkey != double.Pubkey() || info.Network != "regtest" || info.Channels != 1 {
		t.Fatalf("node info = %+v", info)
	}

	// Receive from the peer, then pay the peer.
	var inv struct {
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":200000,"description":"from the peer"}`, tok.Token), 201), &inv)
	if err := double.PayInvoice(inv.LnInvoice.Bolt11, 0); err != nil {
		t.Fatal(err)
	}
	var bal struct {
		AvailableMsat int64 `json:"available_msat"`
	}
	poll.Until(t, 30*time.Second, func() error {
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
		if bal.AvailableMsat != 200_000 {
			return fmt.Errorf("available %d", bal.AvailableMsat)
		}
		return nil
	})
	// Through the Lightning Address: the invoice commits to the metadata's
	// hash (invoice with deschashonly, given the metadata itself).
	c.expect(c.call("POST", "/v1/me/lightning-address", `{"username":"baker"}`, tok.Token), 201)
	var pr lnurl.PayParams
	c.decode(c.expect(c.call("GET", "/.well-known/lnurlp/baker", "", ""), 200), &pr)
	cb, _ := url.Parse(pr.Callback)
	var ans lnurl.Invoice
	c.decode(c.expect(c.call("GET", cb.Path+"?amount=12000", "", ""), 200), &ans)
	dec, err := bolt11.Decode(ans.PR, &chaincfg.RegressionNetParams)
	if sum := sha256.Sum256([]byte(pr.Metadata)); err != nil || dec.DescriptionHash != hex.EncodeToString(sum[:]) || dec.AmountMsat != 12_000 {
		t.Fatalf("the address's invoice = %+v %v, metadata %s", dec, err, pr.Metadata)
	}
	if err := double.PayInvoice(ans.PR, 0); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
		if bal.AvailableMsat != 212_000 {
			return fmt.Errorf("available %d", bal.AvailableMsat)
		}
		return nil
	})

	bolt11, hash, err := double.PeerInvoice(50_000, "to the peer", clntest.Settle)
	if err != nil {
		t.Fatal(err)
	}
	var pay struct {
		Status, Ledger string
		FeeMsat        int64 `json:"fee_msat"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+bolt11+`"}`, tok.Token), 201), &pay)
	if pay.Status != "Settled" || pay.Ledger != "Lightning" || pay.FeeMsat != 1_050 || double.PaymentCount(hash) != 1 {
		t.Fatalf("payment = %+v", pay)
	}
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
	if bal.AvailableMsat != 212_000-50_000-1_050 {
		t.Fatalf("balance after paying = %d", bal.AvailableMsat)
	}

	// On-chain: an address of the node's wallet, a deposit credited once
	// it is mined; a payment out, settled once mined.
	var addr struct {
		Address string `json:"address"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"type":"p2tr"}`, tok.Token), 200), &addr)
	if !strings.HasPrefix(addr.Address, "bcrt1p") {
		t.Fatalf("address = %q", addr.Address)
	}
	txid, err := double.Deposit(addr.Address, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	double.MineBlocks(1)
	var deposits []struct {
		Status        string
		BitcoinOutput struct {
			TxID string `json:"txid"`
		} `json:"bitcoin_output"`
	}
	poll.Until(t, 30*time.Second, func() error {
		c.decode(c.expect(c.call("GET", "/v1/me/invoices?ledger=Onchain", "", tok.Token), 200), &deposits)
		if len(deposits) != 1 || deposits[0].Status != "Settled" || deposits[0].BitcoinOutput.TxID != txid {
			return fmt.Errorf("deposits %+v", deposits)
		}
		return nil
	})
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
	if bal.AvailableMsat != 212_000-50_000-1_050+30_000_000 {
		t.Fatalf("balance after the deposit = %d", bal.AvailableMsat)
	}
	var spend struct {
		ID, Status, Ledger string
		FeeMsat            int64 `json:"fee_msat"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080","amount_msat":10000000}`, tok.Token), 201), &spend)
	if spend.Status != "Pending" || spend.Ledger != "Onchain" || spend.FeeMsat <= 0 {
		t.Fatalf("on-chain payment = %+v", spend)
	}
	double.MineBlocks(1)
	poll.Until(t, 30*time.Second, func() error {
		c.decode(c.expect(c.call("GET", "/v1/me/payments/"+spend.ID, "", tok.Token), 200), &spend)
		if spend.Status != "Settled" {
			return fmt.Errorf("on-chain payment %s", spend.Status)
		}
		return nil
	})
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
	if want := int64(212_000 - 50_000 - 1_050 + 30_000_000 - 10_000_000 - spend.FeeMsat); bal.AvailableMsat != want {
		t.Fatalf("balance after the on-chain payment = %d, want %d", bal.AvailableMsat, want)
	}

	// The node goes away: health and ready are 503 until it is back, and
	// the plugin list shows the backend's health.
	nodePlugin := func() map[string]any {
		t.Helper()
		var ps []map[string]any
		c.decode(c.expect(c.call("GET", "/v1/plugins", "", tok.Token), 200), &ps)
		for _, p := range ps {
			if p["name"] == "node-cln" {
				return p
			}
		}
		t.Fatalf("node-cln is not among the plugins: %v", ps)
		return nil
	}
	if p := nodePlugin(); p["health"] != "ok" || fmt.Sprint(p["capabilities"]) != "[node:backend]" {
		t.Fatalf("node-cln while the node runs: %v", p)
	}
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 204)
	double.Kill()
	c.expectJSON(c.call("GET", "/v1/system/health", "", ""), 503,
		map[string]any{"database": "Operational", "ln_provider": "Unavailable", "is_healthy": false})
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 503)
	if h, _ := nodePlugin()["health"].(string); h == "ok" || h == "" {
		t.Fatalf("node-cln's health while the node is down: %q", h)
	}
	if err := double.Restart(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if r := c.call("GET", "/v1/system/health", "", ""); r.code != 200 {
			return fmt.Errorf("health %d: %s", r.code, r.body)
		}
		return nil
	})
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 204)
	for _, r := range double.Rejected() {
		t.Errorf("the node refused a call as lightningd would: %s", r)
	}
}
