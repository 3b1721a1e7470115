package api_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// user is a wallet owner driving the API with a key of every scope.
type user struct {
	e   *env
	key []string
	id  string // wallet id
}

func (e *env) user(name string) *user {
	e.t.Helper()
	u := &user{e: e, key: apiKey(e.makeKey(name, auth.AllScopes))}
	var w wallet.Wallet
	e.do("GET", "/v1/me", nil, u.key...).expect(e.t, 200).decodeJSON(e.t, &w)
	u.id = w.ID
	return u
}

func (u *user) invoice(t testing.TB, amount int64) ledger.Invoice {
	t.Helper()
	var inv ledger.Invoice
	u.e.do("POST", "/v1/me/invoices", map[string]any{"amount_msat": amount, "description": "test"}, u.key...).
		expect(t, 201).decodeJSON(t, &inv)
	return inv
}

// fund pays an invoice of u from outside, through the embedded node.
func (u *user) fund(t testing.TB, amount int64) {
	t.Helper()
	inv := u.invoice(t, amount)
	u.e.do("POST", "/v1/lightning-node/pay", map[string]any{"bolt11": inv.LnInvoice.Bolt11}, bearer(u.e.adminToken())...).expect(t, 204)
}

func (u *user) balance(t testing.TB) wallet.Balance {
	t.Helper()
	var b wallet.Balance
	u.e.do("GET", "/v1/me/balance", nil, u.key...).expect(t, 200).decodeJSON(t, &b)
	return b
}

func (u *user) pay(bolt11 string, headers ...string) response {
	return u.e.do("POST", "/v1/me/payments", map[string]any{"input": bolt11}, append(append([]string{}, u.key...), headers...)...)
}

func (e *env) checkLedger(t testing.TB) {
	t.Helper()
	breaches, err := e.ledger.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range breaches {
		t.Errorf("ledger breach: %+v", b)
	}
}

func TestInternalPaymentEndToEnd(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 100_000)
		if b := alice.balance(t); b.AvailableMsat != 100_000 || b.ReceivedMsat != 100_000 {
			t.Fatalf("alice after funding: %+v", b)
		}
		inv := bob.invoice(t, 40_000)
		if inv.Status != "Pending" || inv.LnInvoice == nil || !strings.HasPrefix(inv.LnInvoice.Bolt11, "lnbcrt") ||
			inv.LnInvoice.PayeePubkey != e.node.Pubkey() || len(inv.LnInvoice.PaymentHash) != 64 {
			t.Fatalf("invoice = %+v", inv)
		}
		// A fee estimate for an internal invoice is free.
		var est ledger.FeeEstimate
		e.do("POST", "/v1/me/payments/fee-estimate", map[string]any{"input": inv.LnInvoice.Bolt11}, alice.key...).
			expect(t, 200).decodeJSON(t, &est)
		if est.Ledger != "Internal" || est.MaximumTotalMsat != 40_000 {
			t.Fatalf("estimate = %+v", est)
		}

		var p ledger.Payment
		alice.pay("lightning:"+strings.ToUpper(inv.LnInvoice.Bolt11)).expect(t, 201).decodeJSON(t, &p)
		if p.Status != "Settled" || p.Ledger != "Internal" || p.FeeMsat == nil || *p.FeeMsat != 0 || p.AmountMsat != 40_000 ||
			p.Internal == nil || p.Internal.PaymentHash == nil || *p.Internal.PaymentHash != inv.LnInvoice.PaymentHash {
			t.Fatalf("payment = %+v", p)
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 60_000, ReceivedMsat: 100_000, SentMsat: 40_000}) {
			t.Fatalf("alice = %+v", b)
		}
		if b := bob.balance(t); b != (wallet.Balance{AvailableMsat: 40_000, ReceivedMsat: 40_000}) {
			t.Fatalf("bob = %+v", b)
		}
		var got ledger.Invoice
		e.do("GET", "/v1/me/invoices/"+inv.ID, nil, bob.key...).expect(t, 200).decodeJSON(t, &got)
		if got.Status != "Settled" || got.Ledger != "Internal" || got.PaymentTime == nil || *got.AmountReceivedMsat != 40_000 {
			t.Fatalf("settled invoice = %+v", got)
		}
		// Records are private to their wallet on /me routes.
		e.do("GET", "/v1/me/invoices/"+inv.ID, nil, alice.key...).expect(t, 404)
		e.do("GET", "/v1/me/payments/"+p.ID, nil, bob.key...).expect(t, 404)
		e.do("GET", "/v1/me/payments/"+p.ID, nil, alice.key...).expect(t, 200)
		var list []ledger.Payment
		e.do("GET", "/v1/me/payments?status=Settled&ledger=Internal", nil, alice.key...).expect(t, 200).decodeJSON(t, &list)
		if len(list) != 1 || list[0].ID != p.ID {
			t.Fatalf("payments = %+v", list)
		}
		var invs []ledger.Invoice
		e.do("GET", "/v1/me/invoices?status=Pending", nil, bob.key...).expect(t, 200).decodeJSON(t, &invs)
		if len(invs) != 0 {
			t.Fatalf("pending invoices = %+v", invs)
		}
		// The admin sees across wallets and pays on behalf of one.
		admin := bearer(e.adminToken())
		e.do("GET", "/v1/payments?wallet_id="+alice.id, nil, admin...).expect(t, 200).decodeJSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("admin payments of alice = %d", len(list))
		}
		inv2 := alice.invoice(t, 1_000)
		e.do("POST", "/v1/payments", map[string]any{"input": inv2.LnInvoice.Bolt11}, admin...).expect(t, 400)
		e.do("POST", "/v1/payments", map[string]any{"wallet_id": bob.id, "input": inv2.LnInvoice.Bolt11}, admin...).expect(t, 201)
		if b := bob.balance(t); b.AvailableMsat != 39_000 {
			t.Fatalf("bob after admin payment = %+v", b)
		}
		e.checkLedger(t)
	})
}

func TestPaymentRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000)

		own := alice.invoice(t, 1_000)
		if p := alice.pay(own.LnInvoice.Bolt11).expect(t, 422).problem(t); p.Code != "self_payment" {
			t.Fatalf("own invoice: %s", p.Code)
		}
		big := bob.invoice(t, 10_001)
		if p := alice.pay(big.LnInvoice.Bolt11).expect(t, 422).problem(t); p.Code != "insufficient_funds" || !strings.Contains(p.Reason, "10001") {
			t.Fatalf("insufficient: %+v", p)
		}
		// The refusal rolled the whole transaction back: the invoice, which
		// the payment settles first, is still Pending.
		var still ledger.Invoice
		e.do("GET", "/v1/me/invoices/"+big.ID, nil, bob.key...).expect(t, 200).decodeJSON(t, &still)
		if still.Status != "Pending" || still.AmountReceivedMsat != nil {
			t.Fatalf("invoice after a refused payment: %s, received %v", still.Status, still.AmountReceivedMsat)
		}
		paid := bob.invoice(t, 1_000)
		alice.pay(paid.LnInvoice.Bolt11).expect(t, 201)
		if p := alice.pay(paid.LnInvoice.Bolt11).expect(t, 422).problem(t); p.Code != "invoice_paid" {
			t.Fatalf("paid invoice: %s", p.Code)
		}
		e.do("POST", "/v1/lightning-node/pay", map[string]any{"bolt11": paid.LnInvoice.Bolt11}, bearer(e.adminToken())...).expect(t, 422)
		var short ledger.Invoice
		e.do("POST", "/v1/me/invoices", `{"amount_msat":1000,"expiry":1}`, bob.key...).expect(t, 201).decodeJSON(t, &short)
		e.ledger.SetClock(func() time.Time { return time.Now().Add(2 * time.Second) })
		if p := alice.pay(short.LnInvoice.Bolt11).expect(t, 422).problem(t); p.Code != "invoice_expired" {
			t.Fatalf("expired: %s", p.Code)
		}
		var shown ledger.Invoice
		e.do("GET", "/v1/me/invoices/"+short.ID, nil, bob.key...).expect(t, 200).decodeJSON(t, &shown)
		if shown.Status != "Expired" {
			t.Fatalf("expired invoice status = %s", shown.Status)
		}
		e.ledger.SetClock(time.Now)

		amt := bob.invoice(t, 2_000)
		if p := e.do("POST", "/v1/me/payments", map[string]any{"input": amt.LnInvoice.Bolt11, "amount_msat": 1_999}, alice.key...).
			expect(t, 422).problem(t); p.Code != "amount_mismatch" {
			t.Fatalf("mismatch: %s", p.Code)
		}
		e.do("POST", "/v1/me/payments", map[string]any{"input": amt.LnInvoice.Bolt11, "amount_msat": 2_000}, alice.key...).expect(t, 201)
		for _, input := range []string{"", "hello", "lnbcrt1garbage", "bitcoin:bcrt1qxyz", strings.Repeat("lnbc", 3000)} {
			if p := alice.pay(input).expect(t, 422).problem(t); p.Code != "unsupported_input" {
				t.Fatalf("input %.20q: %s", input, p.Code)
			}
		}
		// An invoice of another node would leave the instance: refused.
		other, err := embedded.New(context.Background(), storetest.SQLite(t), "regtest")
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := other.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 1_000, Expiry: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if p := alice.pay(foreign.Bolt11).expect(t, 422).problem(t); p.Code != "no_external_node" ||
			p.Reason != "no Lightning node configured for external payments" {
			t.Fatalf("external: %+v", p)
		}
		e.do("POST", "/v1/lightning-node/pay", map[string]any{"bolt11": foreign.Bolt11}, bearer(e.adminToken())...).expect(t, 422)
		// A mainnet invoice on a regtest instance is not an input.
		main, _ := embedded.New(context.Background(), storetest.SQLite(t), "mainnet")
		mainInv, _ := main.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: 1_000, Expiry: time.Hour})
		alice.pay(mainInv.Bolt11).expect(t, 422)

		// Invoice creation bounds.
		for _, body := range []string{
			`{"amount_msat":0}`, `{"amount_msat":-5}`, `{"amount_msat":1000000000000001}`,
			`{"amount_msat":1000,"expiry":0}`, `{"amount_msat":1000,"expiry":2592001}`,
			fmt.Sprintf(`{"amount_msat":1000,"description":%q}`, strings.Repeat("x", 640)),
		} {
			e.do("POST", "/v1/me/invoices", body, alice.key...).expect(t, 422).problem(t)
		}
		e.do("POST", "/v1/me/invoices", `{"description":"no amount"}`, alice.key...).expect(t, 400)
		// Nothing above moved money wrongly.
		if b := alice.balance(t); b.AvailableMsat != 7_000 || b.SentMsat != 3_000 {
			t.Fatalf("alice = %+v", b)
		}
		e.checkLedger(t)
	})
}

func TestConcurrentSpendNeverOverdraws(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 50_000)
		const n = 100
		invoices := make([]ledger.Invoice, n)
		for i := range invoices {
			invoices[i] = bob.invoice(t, 1_000)
		}
		codes := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i] = alice.pay(invoices[i].LnInvoice.Bolt11).Code
			}()
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for _, c := range codes {
			count[c]++
		}
		if count[201] != 50 || count[422] != 50 {
			t.Fatalf("outcomes = %v, want 50 paid and 50 refused", count)
		}
		if b := alice.balance(t); b != (wallet.Balance{ReceivedMsat: 50_000, SentMsat: 50_000}) {
			t.Fatalf("alice = %+v", b)
		}
		if b := bob.balance(t); b.AvailableMsat != 50_000 {
			t.Fatalf("bob = %+v", b)
		}
		e.checkLedger(t)
	})
}

func TestInvoiceRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		seller := e.user("seller")
		const n = 8
		payers := make([]*user, n)
		for i := range payers {
			payers[i] = e.user(fmt.Sprintf("payer%d", i))
			payers[i].fund(t, 5_000)
		}
		inv := seller.invoice(t, 3_000)
		codes := make([]int, n)
		bodies := make([]response, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				bodies[i] = payers[i].pay(inv.LnInvoice.Bolt11)
				codes[i] = bodies[i].Code
			}()
		}
		close(start)
		wg.Wait()
		winners := 0
		for i, c := range codes {
			b := payers[i].balance(t)
			switch c {
			case 201:
				winners++
				if b.AvailableMsat != 2_000 {
					t.Errorf("winner balance %+v", b)
				}
			case 409, 422:
				if code := bodies[i].problem(t).Code; code != "invoice_race" && code != "invoice_paid" {
					t.Errorf("loser code %s", code)
				}
				if b.AvailableMsat != 5_000 || b.SentMsat != 0 {
					t.Errorf("loser was debited: %+v", b)
				}
			default:
				t.Errorf("unexpected status %d: %s", c, bodies[i].Body)
			}
		}
		if winners != 1 {
			t.Fatalf("%d winners, want 1 (%v)", winners, codes)
		}
		if b := seller.balance(t); b.AvailableMsat != 3_000 {
			t.Fatalf("seller = %+v", b)
		}
		e.checkLedger(t)
	})
}

func TestIdempotentRetries(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice, bob := e.user("alice"), e.user("bob")
		alice.fund(t, 10_000)
		inv := bob.invoice(t, 4_000)
		const n = 10
		ids := make([]string, n)
		codes := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := alice.pay(inv.LnInvoice.Bolt11, "Idempotency-Key", "order-42")
				codes[i] = r.Code
				if r.Code < 300 {
					var p ledger.Payment
					r.decodeJSON(t, &p)
					ids[i] = p.ID
				}
			}()
		}
		wg.Wait()
		created := 0
		for i := range n {
			if codes[i] == 201 {
				created++
			} else if codes[i] != 200 {
				t.Fatalf("retry %d: status %d", i, codes[i])
			}
			if ids[i] != ids[0] {
				t.Fatalf("retries returned different payments: %v", ids)
			}
		}
		if created != 1 {
			t.Fatalf("%d requests created a payment, want 1", created)
		}
		if b := alice.balance(t); b.AvailableMsat != 6_000 {
			t.Fatalf("alice paid more than once: %+v", b)
		}
		// The same key for another request is refused.
		other := bob.invoice(t, 1_000)
		if p := alice.pay(other.LnInvoice.Bolt11, "Idempotency-Key", "order-42").expect(t, 422).problem(t); p.Code != "idempotency_key_reused" {
			t.Fatalf("reuse: %s", p.Code)
		}
		e.checkLedger(t)
	})
}

func TestReplayedSettlementCreditsOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		bob := e.user("bob")
		inv := bob.invoice(t, 7_000)
		st := ledger.InvoiceSettlement{PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: 7_000, Settled: true}
		var wg sync.WaitGroup
		applied := make([]bool, 5)
		for i := range applied {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := e.ledger.SettleInvoice(context.Background(), st)
				if err != nil {
					t.Error(err)
				}
				applied[i] = ok
			}()
		}
		wg.Wait()
		n := 0
		for _, a := range applied {
			if a {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("settlement applied %d times", n)
		}
		if b := bob.balance(t); b.AvailableMsat != 7_000 || b.ReceivedMsat != 7_000 {
			t.Fatalf("bob = %+v", b)
		}
		if _, err := e.ledger.SettleInvoice(context.Background(), ledger.InvoiceSettlement{PaymentHash: strings.Repeat("0", 64)}); err == nil {
			t.Fatal("settling an unknown invoice succeeded")
		}
		e.checkLedger(t)
	})
}
