package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/lib/poll"
)

// The node's own refusals of a spend, over HTTP on lnd, on each database:
// a node that cannot fund the spend (every coin held by another program
// of its wallet) answers 422 with nothing reserved, recorded, published
// or leased; a transaction the node refuses to publish (one of its coins
// taken from under the lease and spent by another program before the
// publication) fails the payment, returns its reserve and releases the
// coins it still leased. `hearth ledger check` clean after both.
// Not parallel: TestServeWithLND kills the node.
func TestOnchainNodeRefusalsWithLND(t *testing.T) {
	net := lndChain{network.Get(t)}
	onBoth(t, func(t *testing.T, db string) { nodeRefusalsOverHTTP(t, net, net.environ(t, db)) })
}

// TestOnchainNodeRefusalsWithCLN is TestOnchainNodeRefusalsWithLND on a
// real lightningd: the other program holds the coins with reserveinputs,
// and takes one by broadcasting a spend of it that it signed before
// Hearth's spend reserved it (lightningd's signpsbt refuses a coin no
// longer reserved: taken through lightningd before Hearth signed, the
// spend would fail to prepare instead).
func TestOnchainNodeRefusalsWithCLN(t *testing.T) {
	net := clnChain{clnNetwork.Get(t)}
	onBoth(t, func(t *testing.T, db string) { nodeRefusalsOverHTTP(t, net, net.environ(t, db)) })
}

func nodeRefusalsOverHTTP(t *testing.T, net chainNet, environ []string) {
	ctx := context.Background()
	c, _ := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	token := tok.Token
	var me struct {
		ID string `json:"id"`
	}
	c.decode(c.expect(c.call("GET", "/v1/me", "", token), 200), &me)
	balance := func() balanceBody {
		var b balanceBody
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &b)
		return b
	}
	payments := func() int {
		var ps []paymentBody
		c.decode(c.expect(c.call("GET", "/v1/me/payments", "", token), 200), &ps)
		return len(ps)
	}
	leases := func() int {
		n, err := net.held(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	mempool := func() []string {
		m, err := net.mempool(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(m)
		return m
	}

	// Funds, in one transaction: an on-chain deposit of 1_000_000 sat, and
	// two coins of the node's own, 200_000 sat each, for the second refusal.
	var mine struct {
		Address string `json:"address"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", `{}`, token), 200), &mine)
	var kept []string
	coins := map[string]int64{mine.Address: 1_000_000}
	for range 2 {
		a, err := net.nodeAddress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		kept, coins[a] = append(kept, a), 200_000
	}
	if _, err := net.send(ctx, coins); err != nil {
		t.Fatal(err)
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if b := balance(); b.Available != 1_000_000_000 {
			return fmt.Errorf("balance %+v", b)
		}
		return nil
	})
	to, err := net.outsideAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// 1. Every coin of the node held by another program: the node cannot
	// fund the spend, nor its estimate.
	// holdCoins holds the node's coins but those paid to keep until the
	// test releases them, or ends.
	holdCoins := func(keep ...string) coinHold {
		t.Helper()
		h, err := net.holdCoins(ctx, keep...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.release(context.Background()) })
		return h
	}
	hold := holdCoins()
	before, held, pool, paid := balance(), leases(), mempool(), payments()
	refusal := map[string]any{"status": "422 Unprocessable Entity", "reason": "insufficient on-chain funds in the node",
		"code": "insufficient_onchain_funds"}
	c.expectJSON(c.call("POST", "/v1/me/payments", `{"input":"`+to+`","amount_msat":100000000}`, token), 422, refusal)
	c.expectJSON(c.call("POST", "/v1/me/payments/fee-estimate", `{"input":"`+to+`","amount_msat":100000000}`, token), 422, refusal)
	if b, m := balance(), mempool(); b != before || leases() != held || !slices.Equal(m, pool) || payments() != paid {
		t.Fatalf("an unfunded spend moved money, leased, published or recorded: balance %+v → %+v, leases %d → %d, mempool %v → %v, payments %d → %d",
			before, b, held, leases(), pool, m, paid, payments())
	}
	if err := hold.release(ctx); err != nil {
		t.Fatal(err)
	}

	// 2. Only the two coins free: a spend of 300_000 sat leases both.
	// While it waits for the database (the wallet's row held), another
	// program takes one of them from under the lease and spends it; the
	// node refuses the publication.
	hold = holdCoins(kept...)
	before = balance()
	unlock := holdWallet(t, environ, me.ID)
	type answer struct {
		code int
		body []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		code, body, err := c.try("POST", "/v1/me/payments", `{"input":"`+to+`","amount_msat":300000000,"fee_rate_sat_vb":2}`, token)
		done <- answer{code, body, err}
	}()
	var spend []heldCoin
	poll.Until(t, 30*time.Second, func() error {
		l, err := hold.others(ctx)
		if err == nil && len(l) != 2 {
			err = fmt.Errorf("%d coins leased by the spend", len(l))
		}
		spend = l
		return err
	})
	taken, err := hold.take(ctx, spend[0])
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	r := <-done
	if r.err != nil || r.code != 201 {
		t.Fatalf("the spend: %d %s %v", r.code, r.body, r.err)
	}
	var p struct {
		paymentBody
		Error string `json:"error"`
	}
	c.decode(reply{body: r.body}, &p)
	if p.Status != "Failed" || p.Ledger != "Onchain" || !strings.Contains(p.Error, "refused") || p.Bitcoin == nil || len(p.Bitcoin.TxID) != 64 {
		t.Fatalf("refused spend = %s", mustJSON(p))
	}
	if b := balance(); b != before {
		t.Fatalf("a refused spend kept a reserve: %+v → %+v", before, b)
	}
	// Hearth's lease holds nothing; the coin it still held is free (on
	// lnd the taken one stays leased by its own SendCoins until it
	// confirms; lightningd's reservations name nobody).
	left, err := hold.others(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range left {
		if (l.holder != "" && l.holder == spend[0].holder) || l.outpoint == spend[1].outpoint {
			t.Fatalf("coin %s still held by %q after the refused spend (the spend's %q)", l.outpoint, l.holder, spend[0].holder)
		}
	}
	if m := mempool(); slices.Contains(m, p.Bitcoin.TxID) || !slices.Contains(m, taken) {
		t.Fatalf("mempool %v: the refused spend %s published, or the other program's %s not", m, p.Bitcoin.TxID, taken)
	}
	if err := hold.release(ctx); err != nil {
		t.Fatal(err)
	}

	// Mined: the refused spend stays Failed, the balance as it was.
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c.expect(c.call("POST", "/v1/bitcoin/sync", "", token), 200)
	waitPayment(t, c, token, p.ID, "Failed")
	if b := balance(); b != before {
		t.Fatalf("balance after mining %+v, before %+v", b, before)
	}
	out := newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
}

// holdWallet holds the wallet's row in the database of environ, as a
// long transaction would, until the returned function is called (or the
// test ends): a payment from it waits before its reserve.
func holdWallet(t *testing.T, environ []string, walletID string) func() {
	t.Helper()
	ctx := context.Background()
	opts := store.Options{MaxConns: 1}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HEARTH_DATABASE_URL":
			opts.PostgresURL = v
		case "HEARTH_DATA_DIR":
			opts.SQLitePath = filepath.Join(v, "hearth.db")
		}
	}
	if opts.PostgresURL != "" {
		opts.SQLitePath = ""
	}
	db, err := store.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE wallets SET updated_at = updated_at WHERE id = ?", walletID); err != nil {
		t.Fatal(err)
	}
	once := false
	unlock := func() {
		if once {
			return
		}
		once = true
		if err := tx.Rollback(); err != nil {
			t.Error(err)
		}
		db.Close()
	}
	t.Cleanup(unlock)
	return unlock
}
