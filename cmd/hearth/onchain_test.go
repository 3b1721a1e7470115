package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/internal/poll"
	"github.com/hearthwallet/hearth/internal/regtest"
)

// The on-chain wallet of `hearth serve` on lnd, over HTTP, on each
// database: deposit addresses of each type, a deposit Pending while
// unconfirmed and credited once at its confirmation, its address used;
// a deposit confirmed while Hearth was stopped, credited at start, once,
// across two restarts; the admin's sync; `hearth ledger check` clean.
// Not parallel: TestServeWithLND kills the node.
func TestOnchainWithLND(t *testing.T) {
	net := network.Get(t)
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			environ := []string{
				"HEARTH_LISTEN=127.0.0.1:0",
				"HEARTH_DATA_DIR=" + t.TempDir(),
				"HEARTH_NODE_BACKEND=lnd",
				"HEARTH_NODE_LND_ADDRESS=" + net.Hearth.RPCAddress,
				"HEARTH_NODE_LND_TLS_CERT=" + net.Hearth.TLSCertPath(),
				"HEARTH_NODE_LND_MACAROON=" + net.Hearth.MacaroonPath(),
			}
			if db == "postgres" {
				environ = append(environ, "HEARTH_DATABASE_URL="+storetest.EmptySchemaURL(t))
			}
			onchainOverHTTP(t, net, environ)
		})
	}
}

func onchainOverHTTP(t *testing.T, net *regtest.Network, environ []string) {
	ctx := context.Background()
	c, stop := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	token := tok.Token

	// An address of each type the node makes; the default is p2wpkh.
	address := func(c *client, body string) map[string]any {
		t.Helper()
		var a map[string]any
		c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", body, token), 200), &a)
		return a
	}
	w := address(c, `{}`)
	prefixes := map[string]string{"p2wpkh": "bcrt1q", "p2sh": "2", "p2tr": "bcrt1p"}
	addrs := map[string]map[string]any{"p2wpkh": w}
	for typ, prefix := range prefixes {
		a := address(c, `{"type":"`+typ+`"}`)
		if a["address_type"] != typ || !strings.HasPrefix(a["address"].(string), prefix) || a["used"] != false {
			t.Fatalf("%s address = %v", typ, a)
		}
		addrs[typ] = a
	}
	if addrs["p2wpkh"]["id"] != w["id"] {
		t.Fatalf("the unused p2wpkh address was not reused: %v, %v", w, addrs["p2wpkh"])
	}
	c.expectJSON(c.call("POST", "/v1/me/bitcoin/address", `{"type":"p2pkh"}`, token), 422, map[string]any{
		"status": "422 Unprocessable Entity", "reason": "Unsupported address type: lnd makes no p2pkh addresses", "code": "unsupported_address_type"})
	c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"type":"p2wsh"}`, token), 400)

	// A deposit: Pending at once, its address used, not credited.
	tip, err := net.Height()
	if err != nil {
		t.Fatal(err)
	}
	txid, err := net.Peer.SendCoins(ctx, w["address"].(string), 100_000)
	if err != nil {
		t.Fatal(err)
	}
	type output struct {
		TxID          string `json:"txid"`
		Vout          uint32 `json:"vout"`
		Address       string `json:"address"`
		AmountSat     int64  `json:"amount_sat"`
		BlockHeight   *int64 `json:"block_height"`
		Confirmations int64  `json:"confirmations"`
	}
	type invoice struct {
		ID, Status, Ledger string
		AmountReceivedMsat int64   `json:"amount_received_msat"`
		BitcoinOutput      *output `json:"bitcoin_output"`
		LnInvoice          any     `json:"ln_invoice"`
	}
	deposits := func(c *client) []invoice {
		var invs []invoice
		c.decode(c.expect(c.call("GET", "/v1/me/invoices?ledger=Onchain&order_direction=Asc", "", token), 200), &invs)
		return invs
	}
	var invs []invoice
	poll.Until(t, 30*time.Second, func() error {
		if invs = deposits(c); len(invs) != 1 {
			return fmt.Errorf("%d deposits", len(invs))
		}
		return nil
	})
	d := invs[0]
	if d.Status != "Pending" || d.Ledger != "Onchain" || d.LnInvoice != nil || d.BitcoinOutput == nil ||
		d.BitcoinOutput.TxID != txid || d.BitcoinOutput.Address != w["address"] || d.BitcoinOutput.AmountSat != 100_000 ||
		d.BitcoinOutput.BlockHeight != nil || d.BitcoinOutput.Confirmations != 0 {
		t.Fatalf("pending deposit = %+v %+v", d, d.BitcoinOutput)
	}
	balance := func(c *client) (available, received int64) {
		var b struct {
			Available int64 `json:"available_msat"`
			Received  int64 `json:"received_msat"`
		}
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &b)
		return b.Available, b.Received
	}
	if a, _ := balance(c); a != 0 {
		t.Fatalf("an unconfirmed deposit was credited: %d", a)
	}
	var used []map[string]any
	c.decode(c.expect(c.call("GET", "/v1/me/bitcoin/addresses?used=true", "", token), 200), &used)
	if len(used) != 1 || used[0]["id"] != w["id"] {
		t.Fatalf("used addresses = %v", used)
	}
	if next := address(c, `{}`); next["id"] == w["id"] {
		t.Fatal("a used address was handed out again")
	}

	// Confirmed: credited, once.
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if a, _ := balance(c); a != 100_000_000 {
			return fmt.Errorf("available %d", a)
		}
		return nil
	})
	d = deposits(c)[0]
	if d.Status != "Settled" || d.AmountReceivedMsat != 100_000_000 || d.BitcoinOutput.BlockHeight == nil ||
		*d.BitcoinOutput.BlockHeight != tip+1 || d.BitcoinOutput.Confirmations < 1 {
		t.Fatalf("settled deposit = %+v %+v", d, d.BitcoinOutput)
	}

	// Stopped: a deposit to the p2tr address confirms meanwhile. Started:
	// credited at start; restarted: nothing more.
	stop()
	if _, err := net.Peer.SendCoins(ctx, addrs["p2tr"]["address"].(string), 200_000); err != nil {
		t.Fatal(err)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c, stop = serveForTest(t, environ)
		poll.Until(t, 30*time.Second, func() error {
			if a, r := balance(c); a != 300_000_000 || r != 300_000_000 {
				return fmt.Errorf("available %d, received %d", a, r)
			}
			return nil
		})
		stop()
	}
	c, stop = serveForTest(t, environ)
	defer stop()
	var sync struct {
		SyncedHeight int64 `json:"synced_height"`
		OutputsSeen  int   `json:"outputs_seen"`
	}
	c.decode(c.expect(c.call("POST", "/v1/bitcoin/sync", "", token), 200), &sync)
	if sync.SyncedHeight < tip+2 || sync.OutputsSeen != 2 {
		t.Fatalf("sync = %+v", sync)
	}
	invs = deposits(c)
	if len(invs) != 2 || invs[0].Status != "Settled" || invs[1].Status != "Settled" {
		t.Fatalf("deposits = %+v", invs)
	}
	if a, r := balance(c); a != 300_000_000 || r != 300_000_000 {
		t.Fatalf("available %d, received %d", a, r)
	}
	out := newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
}

// serveForTest runs `hearth serve` with environ until stop, and returns a
// client of it.
func serveForTest(t *testing.T, environ []string) (*client, func()) {
	t.Helper()
	out := newSyncWriter()
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		runErr = run(ctx, []string{"serve"}, out, environ)
	}()
	m, err := out.waitFor(listeningRE, stopped, 30*time.Second)
	if err != nil {
		cancel()
		t.Fatalf("%v; run error %v; output:\n%s", err, runErrIfStopped(stopped, &runErr), out)
	}
	c := &client{t: t, base: m[1], http: &http.Client{Timeout: 30 * time.Second}}
	once := false
	stop := func() {
		if once {
			return
		}
		once = true
		c.http.CloseIdleConnections()
		cancel()
		<-stopped
	}
	t.Cleanup(stop)
	return c, stop
}
