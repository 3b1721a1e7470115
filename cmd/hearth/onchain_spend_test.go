package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
)

// On-chain spends over HTTP on lnd, on each database: refusals that
// reserve, publish and lease nothing; a fee estimate that leaves no lease;
// a spend through the mempool to its confirmation at the node's exact
// fee; BIP21, with and without lightning=; a deposit address of another
// wallet paid inside the instance, one's own refused; 20 concurrent
// spends that never overdraw; `hearth ledger check` clean.
// Not parallel: TestServeWithLND kills the node.
func TestOnchainSpendWithLND(t *testing.T) {
	net := lndChain{network.Get(t)}
	onBoth(t, func(t *testing.T, db string) { spendOverHTTP(t, net, net.environ(t, db)) })
}

// TestOnchainSpendWithCLN is TestOnchainSpendWithLND on a real lightningd:
// the spends' coins reserved by txprepare and released by unreserveinputs
// instead of leased.
func TestOnchainSpendWithCLN(t *testing.T) {
	net := clnChain{clnNetwork.Get(t)}
	onBoth(t, func(t *testing.T, db string) { spendOverHTTP(t, net, net.environ(t, db)) })
}

type balanceBody struct {
	Available int64 `json:"available_msat"`
	Reserved  int64 `json:"reserved_msat"`
	Received  int64 `json:"received_msat"`
	Sent      int64 `json:"sent_msat"`
	Fees      int64 `json:"fees_paid_msat"`
}

type paymentBody struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Ledger     string `json:"ledger"`
	AmountMsat int64  `json:"amount_msat"`
	FeeMsat    int64  `json:"fee_msat"`
	Bitcoin    *struct {
		Address string `json:"address"`
		TxID    string `json:"txid"`
	} `json:"bitcoin"`
	Internal *struct {
		BtcAddress string `json:"btc_address"`
	} `json:"internal"`
}

func spendOverHTTP(t *testing.T, net chainNet, environ []string) {
	ctx := context.Background()
	c, _ := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	token := tok.Token
	balance := func() balanceBody {
		var b balanceBody
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &b)
		return b
	}
	leases := func() int {
		n, err := net.held(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Funds: an on-chain deposit of 1_000_000 sat.
	var mine struct {
		Address string `json:"address"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/bitcoin/address", `{}`, token), 200), &mine)
	if _, err := net.send(ctx, map[string]int64{mine.Address: 1_000_000}); err != nil {
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

	// Refusals: nothing reserved, nothing leased.
	before, held := balance(), leases()
	for _, r := range []struct{ body, reason string }{
		{`{"input":"` + to + `"}`, "amount_msat is required"},
		{`{"input":"` + to + `","amount_msat":100500}`, "whole number of satoshis"},
		{`{"input":"` + to + `","amount_msat":100000}`, "dust"},
		{`{"input":"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq","amount_msat":100000000}`, "another network"},
		{`{"input":"` + to + `","amount_msat":2000000000}`, "Insufficient funds"},
		{`{"input":"bitcoin:` + to + `?amount=0.001&req-somethingnew=1"}`, "does not support"},
		{`{"input":"` + mine.Address + `","amount_msat":100000000}`, "your own deposit address"},
		{`{"input":"` + to + `","amount_msat":100000000,"fee_rate_sat_vb":0}`, "fee_rate_sat_vb"},
	} {
		res := c.expect(c.call("POST", "/v1/me/payments", r.body, token), 422)
		if !strings.Contains(string(res.body), r.reason) {
			t.Errorf("%s: %s, want %q", r.body, res.body, r.reason)
		}
	}
	if b := balance(); b != before || leases() != held {
		t.Fatalf("refusals moved money or leased coins: %+v → %+v, leases %d → %d", before, b, held, leases())
	}

	// A fee estimate prepares, reads the fee and releases.
	var est struct {
		Ledger       string `json:"ledger"`
		AmountMsat   int64  `json:"amount_msat"`
		EstimatedFee int64  `json:"estimated_fee_msat"`
		MaximumTotal int64  `json:"maximum_total_msat"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments/fee-estimate", `{"input":"`+to+`","amount_msat":100000000}`, token), 200), &est)
	if est.Ledger != "Onchain" || est.AmountMsat != 100_000_000 || est.EstimatedFee <= 0 || est.EstimatedFee%1000 != 0 ||
		est.MaximumTotal != est.AmountMsat+est.EstimatedFee {
		t.Fatalf("estimate = %+v", est)
	}
	if b := balance(); b != before || leases() != held {
		t.Fatalf("the estimate moved money or left a lease: %+v, leases %d → %d", b, held, leases())
	}

	// A spend: Pending with amount + its exact fee reserved, Settled at
	// the first confirmation.
	var p paymentBody
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+to+`","amount_msat":100000000}`, token), 201), &p)
	if p.Status != "Pending" || p.Ledger != "Onchain" || p.AmountMsat != 100_000_000 || p.FeeMsat <= 0 || p.FeeMsat%1000 != 0 ||
		p.Bitcoin == nil || p.Bitcoin.Address != to || len(p.Bitcoin.TxID) != 64 {
		t.Fatalf("spend = %s", mustJSON(p))
	}
	if b := balance(); b.Available != before.Available-100_000_000-p.FeeMsat || b.Reserved != 100_000_000+p.FeeMsat {
		t.Fatalf("pending spend's balance %+v", b)
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitPayment(t, c, token, p.ID, "Settled")
	after := balance()
	if after.Reserved != 0 || after.Sent != 100_000_000 || after.Fees != p.FeeMsat || after.Available != before.Available-100_000_000-p.FeeMsat {
		t.Fatalf("settled spend's balance %+v (fee %d)", after, p.FeeMsat)
	}

	// BIP21: the URI's amount; a lightning= invoice wins.
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"bitcoin:`+to+`?amount=0.0005&label=rent","fee_rate_sat_vb":25}`, token), 201), &p)
	if p.Ledger != "Onchain" || p.AmountMsat != 50_000_000 || p.Status != "Pending" || p.FeeMsat < 25*110*1000 {
		t.Fatalf("BIP21 spend = %s", mustJSON(p))
	}
	bolt11, err := net.outsideInvoice(ctx, 7_000_000, "bip21")
	if err != nil {
		t.Fatal(err)
	}
	var ln paymentBody
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"bitcoin:`+to+`?amount=0.00007&lightning=`+bolt11+`"}`, token), 201), &ln)
	if ln.Ledger != "Lightning" || ln.Status != "Settled" || ln.AmountMsat != 7_000_000 {
		t.Fatalf("BIP21 with lightning = %s", mustJSON(ln))
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitPayment(t, c, token, p.ID, "Settled")

	// Another wallet's deposit address: paid inside the instance.
	var bob struct {
		ID string `json:"id"`
	}
	c.decode(c.expect(c.call("POST", "/v1/wallets", `{"user_id":"bob"}`, token), 201), &bob)
	var bobs struct {
		Address string `json:"address"`
	}
	c.decode(c.expect(c.call("POST", "/v1/bitcoin/addresses", `{"wallet_id":"`+bob.ID+`","type":"p2tr"}`, token), 200), &bobs)
	var inEst struct {
		Ledger       string `json:"ledger"`
		EstimatedFee int64  `json:"estimated_fee_msat"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments/fee-estimate", `{"input":"`+bobs.Address+`","amount_msat":20000000}`, token), 200), &inEst)
	if inEst.Ledger != "Internal" || inEst.EstimatedFee != 0 {
		t.Fatalf("internal estimate = %+v", inEst)
	}
	var in paymentBody
	c.decode(c.expect(c.call("POST", "/v1/me/payments", `{"input":"`+bobs.Address+`","amount_msat":20000000}`, token), 201), &in)
	if in.Ledger != "Internal" || in.Status != "Settled" || in.FeeMsat != 0 || in.Internal == nil || in.Internal.BtcAddress != bobs.Address {
		t.Fatalf("internal = %s", mustJSON(in))
	}
	var bw struct {
		Balance balanceBody `json:"balance"`
	}
	c.decode(c.expect(c.call("GET", "/v1/wallets/"+bob.ID, "", token), 200), &bw)
	if bw.Balance.Available != 20_000_000 {
		t.Fatalf("bob's wallet %+v", bw)
	}

	// An Idempotency-Key retried, also at once: one payment, one
	// transaction, one reserve.
	keyed := func() (int, paymentBody) {
		req, err := http.NewRequest("POST", c.base+"/v1/me/payments", strings.NewReader(`{"input":"`+to+`","amount_msat":30000000}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "rent-2026-11")
		res, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p paymentBody
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, p
	}
	preKey, heldKey := balance(), leases()
	var kw sync.WaitGroup
	ids := make([]string, 4)
	for i := range ids {
		kw.Go(func() {
			if code, p := keyed(); code == 200 || code == 201 {
				ids[i] = p.ID
			} else {
				t.Errorf("keyed payment: %d %+v", code, p)
			}
		})
	}
	kw.Wait()
	_, again := keyed()
	for _, id := range ids {
		if id != again.ID {
			t.Fatalf("one key, payments %v and %s", ids, again.ID)
		}
	}
	if b := balance(); b.Reserved-preKey.Reserved != 30_000_000+again.FeeMsat {
		t.Fatalf("one key reserved %d msat, want %d", b.Reserved-preKey.Reserved, 30_000_000+again.FeeMsat)
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitPayment(t, c, token, again.ID, "Settled")
	if n := leases(); n != heldKey {
		t.Fatalf("%d coins leased after the keyed spend, %d before", n, heldKey)
	}

	// 20 concurrent spends from one wallet, more than it holds: never
	// overdrawn. The node has coins enough for all of them, confirmed
	// (not Hearth's money: paid to the node's own addresses).
	coins := map[string]int64{}
	for range 25 {
		a, err := net.nodeAddress(ctx)
		if err != nil {
			t.Fatal(err)
		}
		coins[a] = 200_000
	}
	if _, err := net.send(ctx, coins); err != nil {
		t.Fatal(err)
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	start := balance()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var spent int64
	codes := map[int]int{}
	for range 20 {
		wg.Go(func() {
			r := c.call("POST", "/v1/me/payments", `{"input":"`+to+`","amount_msat":60000000}`, token)
			mu.Lock()
			defer mu.Unlock()
			codes[r.code]++
			if r.code == 422 && !strings.Contains(string(r.body), "insufficient_funds") {
				t.Errorf("a concurrent spend refused: %s", r.body)
			}
			if r.code == 201 {
				var p paymentBody
				if err := json.Unmarshal(r.body, &p); err != nil {
					t.Error(err)
					return
				}
				spent += p.AmountMsat + p.FeeMsat
			}
		})
	}
	wg.Wait()
	b := balance()
	t.Logf("20 concurrent spends: %v (status: count), %d msat spent of %d", codes, spent, start.Available)
	if codes[201] == 0 || codes[201]+codes[422] != 20 || b.Available < 0 || spent > start.Available ||
		b.Available != start.Available-spent || b.Reserved != spent {
		t.Fatalf("concurrent spends: codes %v, spent %d of %d, balance %+v", codes, spent, start.Available, b)
	}
	if err := net.mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if b := balance(); b.Reserved != 0 {
			return fmt.Errorf("balance %+v", b)
		}
		return nil
	})
	if n := leases(); n != held {
		t.Fatalf("%d coins leased after every spend confirmed, %d before", n, held)
	}
	out := newSyncWriter()
	if err := run(ctx, []string{"ledger", "check"}, out, environ); err != nil || !strings.Contains(out.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v; %s", err, out)
	}
}

func waitPayment(t *testing.T, c *client, token, id, status string) {
	t.Helper()
	poll.Until(t, 30*time.Second, func() error {
		var p paymentBody
		c.decode(c.expect(c.call("GET", "/v1/me/payments/"+id, "", token), 200), &p)
		if p.Status != status {
			return fmt.Errorf("payment %s", p.Status)
		}
		return nil
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
