package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

var network regtest.Shared

func TestMain(m *testing.M) {
	if os.Getenv(serverProcessEnv) != "" {
		main() // a server process started by startServer (process_test.go)
		os.Exit(0)
	}
	code := m.Run()
	network.Close()
	clnNetwork.Close()
	withdrawNetwork.Close()
	os.Exit(code)
}

// `hearth serve` with node.backend = "lnd" on the regtest network: health
// reports the node (503 while it is down), the node info, and money moving
// both ways over HTTP.
func TestServeWithLND(t *testing.T) {
	t.Parallel()
	net := network.Get(t)
	environ := []string{
		"HEARTH_LISTEN=127.0.0.1:0",
		"HEARTH_DATA_DIR=" + t.TempDir(),
		"HEARTH_NODE_BACKEND=lnd",
		"HEARTH_NODE_LND_ADDRESS=" + net.Hearth.RPCAddress,
		"HEARTH_NODE_LND_TLS_CERT=" + net.Hearth.TLSCertPath(),
		"HEARTH_NODE_LND_MACAROON=" + net.Hearth.MacaroonPath(),
		// Prices by hand, no source: 1,000 sat a dollar.
		"HEARTH_RATES_SOURCES=",
		"HEARTH_RATES_FIXED=USD:100000",
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
	if info.Backend != "lnd" || info.Pubkey != net.Hearth.Pubkey || info.Network != "regtest" || info.Channels != 1 {
		t.Fatalf("node info = %+v", info)
	}

	// Receive from the peer, then pay the peer.
	var inv struct {
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":500000,"description":"from the peer"}`, tok.Token), 201), &inv)
	if _, err := net.Peer.Pay(ctx, inv.LnInvoice.Bolt11, 10_000); err != nil {
		t.Fatal(err)
	}
	var bal struct {
		AvailableMsat int64 `json:"available_msat"`
	}
	poll.Until(t, 30*time.Second, func() error {
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &bal)
		if bal.AvailableMsat != 500_000 {
			return fmt.Errorf("available %d", bal.AvailableMsat)
		}
		return nil
	})
	bolt11, _, err := net.Peer.AddInvoice(ctx, 50_000, "to the peer")
	if err != nil {
		t.Fatal(err)
	}
	var pay struct{ Status, Ledger string }
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+bolt11+`"}`, tok.Token), 201), &pay)
	if pay.Status != "Settled" || pay.Ledger != "Lightning" {
		t.Fatalf("payment = %+v", pay)
	}

	// An invoice without an amount, paid in dollars: 0.123 USD at 1,000
	// sat a dollar is 123 sat, to the whole satoshi, and the record keeps
	// what was asked.
	boost, _, err := net.Peer.AddInvoice(ctx, 0, "a boost")
	if err != nil {
		t.Fatal(err)
	}
	var fiatPay struct {
		Status, Ledger string
		AmountMsat     int64 `json:"amount_msat"`
		Fiat           *struct{ Amount, Currency, Rate string }
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+boost+`","amount":"0.1239","currency":"usd"}`, tok.Token), 201), &fiatPay)
	if fiatPay.Status != "Settled" || fiatPay.AmountMsat != 123_000 || fiatPay.Fiat == nil ||
		fiatPay.Fiat.Amount != "0.1239" || fiatPay.Fiat.Currency != "USD" || fiatPay.Fiat.Rate != "1000" {
		t.Fatalf("payment in dollars = %+v %+v, want 123,000 msat for 0.1239 USD at 1000 sat a dollar", fiatPay, fiatPay.Fiat)
	}
	c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+bolt11+`","amount":"0.05","currency":"USD"}`, tok.Token), 422)

	// The node goes away: health and ready are 503 until it is back.
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 204)
	net.Hearth.Kill()
	t.Cleanup(func() { net.Hearth.Restart(context.Background()) }) //nolint:errcheck // running already when the test went on
	c.expectJSON(c.call("GET", "/v1/system/health", "", ""), 503,
		map[string]any{"database": "Operational", "ln_provider": "Unavailable", "is_healthy": false})
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 503)
	if err := net.Hearth.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if r := c.call("GET", "/v1/system/health", "", ""); r.code != 200 {
			return fmt.Errorf("health %d: %s", r.code, r.body)
		}
		return nil
	})
	c.expect(c.call("GET", "/v1/system/ready", "", ""), 204)
}
