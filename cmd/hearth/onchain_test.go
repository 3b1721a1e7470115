package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
)

// The on-chain wallet of `hearth serve` on lnd, over HTTP, on each
// database: deposit addresses of each type, a deposit Pending while
// unconfirmed and credited once at its confirmation, its address used;
// a deposit confirmed while Hearth was stopped, credited at start, once,
// across two restarts; the admin's sync; `hearth ledger check` and
// `hearth ledger check --node` clean.
// Not parallel: TestServeWithLND kills the node.
func TestOnchainWithLND(t *testing.T) {
	net := lndChain{network.Get(t)}
	onBoth(t, func(t *testing.T, db string) { onchainOverHTTP(t, net, net.environ(t, db)) })
}

// TestOnchainWithCLN is TestOnchainWithLND on a real lightningd, whose
// wallet lists a deposit from its first block: with
// onchain.min_confirmations = 2 the deposit is Pending at one
// confirmation and credited at two; lightningd makes no p2sh addresses.
func TestOnchainWithCLN(t *testing.T) {
	net := clnChain{clnNetwork.Get(t)}
	onBoth(t, func(t *testing.T, db string) {
		onchainOverHTTP(t, net, append(net.environ(t, db), "HEARTH_ONCHAIN_MIN_CONFIRMATIONS=2"))
	})
}

// onchainOverHTTP runs the deposits' story on net. A node whose wallet
// lists unconfirmed deposits runs it with onchain.min_confirmations = 1,
// any other with 2: either way the deposit is seen Pending first.
func onchainOverHTTP(t *testing.T, net chainNet, environ []string) {
	ctx := context.Background()
	tr := net.traits()
	// confs is how many blocks credit a deposit.
	confs := 1
	if !tr.mempool {
		confs = 2
	}
	c, stop := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	token := tok.Token

	// An address of each type the node makes; the default is p2wpkh; the
	// clear 422 for the others.
	address := func(c *client, body string) map[string]any {
		t.Helper()
		var a map[string]any
		c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", body, token), 200), &a)
		return a
	}
	w := address(c, `{}`)
	addrs := map[string]map[string]any{"p2wpkh": w}
	for typ, prefix := range tr.prefixes {
		a := address(c, `{"type":"`+typ+`"}`)
		if a["address_type"] != typ || !strings.HasPrefix(a["address"].(string), prefix) || a["used"] != false {
			t.Fatalf("%s address = %v", typ, a)
		}
		addrs[typ] = a
	}
	if addrs["p2wpkh"]["id"] != w["id"] {
		t.Fatalf("the unused p2wpkh address was not reused: %v, %v", w, addrs["p2wpkh"])
	}
	for _, typ := range tr.unsupported {
		c.expectJSON(c.call("POST", "/v1/me/bitcoin/address", `{"type":"`+typ+`"}`, token), 422, map[string]any{
			"status": "422 Unprocessable Entity", "reason": "Unsupported address type: " + net.backend() + " makes no " + typ + " addresses",
			"code": "unsupported_address_type"})
	}
	c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"type":"p2wsh"}`, token), 400)

	// A deposit: Pending once the node lists it (at once, or from its
	// block), its address used, not credited.
	tip, err := net.height(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txid, err := net.send(ctx, map[string]int64{w["address"].(string): 100_000})
	if err != nil {
		t.Fatal(err)
	}
	// pendingHeight and pendingConfs are the deposit's while Pending.
	var pendingHeight *int64
	pendingConfs := int64(0)
	if !tr.mempool {
		if err := net.mine(ctx, 1); err != nil {
			t.Fatal(err)
		}
		h := tip + 1
		pendingHeight, pendingConfs = &h, 1
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
		!equalHeight(d.BitcoinOutput.BlockHeight, pendingHeight) || d.BitcoinOutput.Confirmations != pendingConfs {
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

	// Confirmed: credited, once — on PostgreSQL also while a second
	// replica and the admin sync on both replicas race the leader's stream.
	var racers sync.WaitGroup
	if strings.Contains(strings.Join(environ, " "), "HEARTH_DATABASE_URL=postgres") {
		replica := append(slices.Clone(environ), "HEARTH_DATA_DIR="+t.TempDir())
		c2, stop2 := serveForTest(t, replica)
		defer stop2()
		for _, cl := range []*client{c, c2, c, c2} {
			racers.Go(func() {
				for range 5 {
					if r := cl.call("POST", "/v1/bitcoin/sync", "", token); r.code != 200 {
						t.Errorf("sync: %d %s", r.code, r.body)
					}
				}
			})
		}
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	racers.Wait()
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
	if _, err := net.send(ctx, map[string]int64{addrs["p2tr"]["address"].(string): 200_000}); err != nil {
		t.Fatal(err)
	}
	if err := net.mine(ctx, confs); err != nil {
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
	out = newSyncWriter()
	if err := run(ctx, []string{"ledger", "check", "--node"}, out, environ); err != nil ||
		!strings.Contains(out.String(), "the wallets are owed 300000000 msat; the node holds ") {
		t.Fatalf("ledger check --node: %v; %s", err, out)
	}
}

// equalHeight compares two optional block heights.
func equalHeight(a, b *int64) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
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
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("hearth serve's output:\n%s", out)
		}
	})
	return c, stop
}

// A deposit whose block is reorganised away before it is credited
// (onchain.min_confirmations = 2) goes back to Pending, unconfirmed; mined
// again, it is credited once.
// Not parallel: TestServeWithLND kills the node.
func TestOnchainReorgWithLND(t *testing.T) {
	net := lndChain{network.Get(t)}
	onBoth(t, func(t *testing.T, db string) { reorgOverHTTP(t, net, net.environ(t, db)) })
}

// TestOnchainReorgWithCLN is TestOnchainReorgWithLND on a real lightningd,
// to a p2tr address: the block is replaced by two empty ones (lightningd
// sees a reorganisation only from a block above its tip).
func TestOnchainReorgWithCLN(t *testing.T) {
	net := clnChain{clnNetwork.Get(t)}
	onBoth(t, func(t *testing.T, db string) { reorgOverHTTP(t, net, net.environ(t, db)) })
}

func reorgOverHTTP(t *testing.T, net chainNet, environ []string) {
	environ = append(environ, "HEARTH_ONCHAIN_MIN_CONFIRMATIONS=2")
	ctx := context.Background()
	c, _ := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	var a struct {
		Address string `json:"address"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"type":"`+net.traits().reorgType+`"}`, tok.Token), 200), &a)
	if _, err := net.send(ctx, map[string]int64{a.Address: 30_000}); err != nil {
		t.Fatal(err)
	}
	type deposit struct {
		Status        string `json:"status"`
		BitcoinOutput struct {
			BlockHeight   *int64 `json:"block_height"`
			Confirmations int64  `json:"confirmations"`
		} `json:"bitcoin_output"`
	}
	// deposits runs the admin's sync and returns the deposits.
	deposits := func() []deposit {
		c.expect(c.call("POST", "/v1/bitcoin/sync", "", tok.Token), 200)
		var ds []deposit
		c.decode(c.expect(c.call("GET", "/v1/me/invoices?ledger=Onchain", "", tok.Token), 200), &ds)
		return ds
	}
	// sync returns the one deposit.
	sync := func() deposit {
		ds := deposits()
		if len(ds) != 1 {
			t.Fatalf("deposits = %+v", ds)
		}
		return ds[0]
	}
	if net.traits().mempool {
		poll.Until(t, 30*time.Second, func() error {
			if ds := deposits(); len(ds) != 1 {
				return fmt.Errorf("%d deposits", len(ds))
			}
			return nil
		})
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var mined int64
	poll.Until(t, 30*time.Second, func() error {
		ds := deposits()
		if len(ds) != 1 || ds[0].BitcoinOutput.BlockHeight == nil || ds[0].Status != "Pending" {
			return fmt.Errorf("deposits %+v", ds)
		}
		mined = *ds[0].BitcoinOutput.BlockHeight
		return nil
	})
	if h, err := net.reorgTip(ctx); err != nil || h != mined {
		t.Fatalf("reorganised %d away (%v), the deposit was mined at %d", h, err, mined)
	}
	poll.Until(t, 30*time.Second, func() error {
		if d := sync(); d.Status != "Pending" || d.BitcoinOutput.BlockHeight != nil || d.BitcoinOutput.Confirmations != 0 {
			return fmt.Errorf("deposit %+v, height %v", d, d.BitcoinOutput.BlockHeight)
		}
		return nil
	})
	if err := net.mine(ctx, 2); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if d := sync(); d.Status != "Settled" {
			return fmt.Errorf("deposit %+v", d)
		}
		return nil
	})
	sync()
	var b struct {
		Available int64 `json:"available_msat"`
	}
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &b)
	if b.Available != 30_000_000 {
		t.Fatalf("available %d", b.Available)
	}
	out := newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
}

// On the embedded node the bitcoin routes answer the clear 422, after the
// API's scope and admin checks: a key without write:btc_address gets 403,
// a user's key on an admin route 403.
func TestOnchainWithoutNode(t *testing.T) {
	t.Parallel()
	c, _ := serveForTest(t, []string{"HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR=" + t.TempDir()})
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	refusal := map[string]any{"status": "422 Unprocessable Entity", "reason": "the on-chain wallet needs an lnd or cln node", "code": "onchain_unavailable"}
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/me/bitcoin/address", `{}`},
		{"POST", "/v1/me/bitcoin/address", `{"type":"p2tr"}`},
		{"GET", "/v1/me/bitcoin/addresses", ""},
		{"GET", "/v1/me/bitcoin/addresses/0191e5b4-0000-7000-8000-000000000000", ""},
		{"DELETE", "/v1/me/bitcoin/addresses/0191e5b4-0000-7000-8000-000000000000", ""},
		{"GET", "/v1/bitcoin/addresses", ""},
		{"POST", "/v1/bitcoin/sync", ""},
	} {
		c.expectJSON(c.call(r.method, r.path, r.body, tok.Token), 422, refusal)
	}
	c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"type":"p2wsh"}`, tok.Token), 400)
	// An address as payment input, or its fee estimate.
	pay := `{"input":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080","amount_msat":100000000}`
	c.expectJSON(c.call("POST", "/v1/me/payments", pay, tok.Token), 422, refusal)
	c.expectJSON(c.call("POST", "/v1/me/payments/fee-estimate", pay, tok.Token), 422, refusal)
	c.expect(c.call("POST", "/v1/me/bitcoin/address", `{"kind":"p2tr"}`, tok.Token), 400)

	// Scopes: a read-only key reads, but neither makes nor deletes.
	key := func(path, body string) string {
		var k struct {
			Key string `json:"key"`
		}
		c.decode(c.expect(c.call("POST", path, body, tok.Token), 201), &k)
		return k.Key
	}
	withKey := func(key, method, path, body string) int {
		req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Api-Key", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	reader := key("/v1/me/api-keys", `{"name":"reader","permissions":["read:btc_address"]}`)
	if code := withKey(reader, "POST", "/v1/me/bitcoin/address", `{}`); code != 403 {
		t.Errorf("a read-only key made an address: %d", code)
	}
	if code := withKey(reader, "DELETE", "/v1/me/bitcoin/addresses/0191e5b4-0000-7000-8000-000000000000", ""); code != 403 {
		t.Errorf("a read-only key deleted an address: %d", code)
	}
	if code := withKey(reader, "GET", "/v1/me/bitcoin/addresses", ""); code != 422 {
		t.Errorf("a read-only key listing: %d", code)
	}
	user := key("/v1/api-keys", `{"user_id":"carol","name":"carol","permissions":["write:ln_node","read:btc_address","write:btc_address"]}`)
	for _, path := range []string{"/v1/bitcoin/sync", "/v1/bitcoin/addresses"} {
		method := "POST"
		if path == "/v1/bitcoin/addresses" {
			method = "GET"
		}
		if code := withKey(user, method, path, ""); code != 403 {
			t.Errorf("a user's key on %s %s: %d", method, path, code)
		}
	}
}
