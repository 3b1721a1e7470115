package lnurl_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// pay posts a payment as token.
func (k *kit) pay(token string, body map[string]any, headers ...string) (response, ledger.Payment) {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/payments", body, headers...)
	var p ledger.Payment
	if r.Code == 200 || r.Code == 201 {
		r.json(k.t, &p)
	}
	return r, p
}

// TestInternalPayment pays user@<own domain> (and an LNURL of the
// instance's own payRequest) inside the instance: one transaction, fee 0,
// internal.ln_address; every refusal moves nothing.
func TestInternalPayment(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "Hearth.Test", PublicURL: public, CommentAllowed: 10}, nil)
		aliceTok, aliceW := k.user("alice", 0)
		bobTok, bobW := k.user("bob", 100_000)
		a := k.register(aliceTok, "alice")

		r, p := k.pay(bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 5000, "comment": "hi"})
		if r.Code != 201 || p.Status != ledger.StatusSettled || p.Ledger != ledger.LedgerInternal || p.FeeMsat == nil || *p.FeeMsat != 0 ||
			p.Internal == nil || p.Internal.LnAddress == nil || *p.Internal.LnAddress != "alice@hearth.test" || p.Internal.PaymentPreimage == nil {
			t.Fatalf("paying alice@hearth.test: %d %s", r.Code, r.Body)
		}
		if got := e.Balance(aliceW.ID); got.AvailableMsat != 5000 || got.ReceivedMsat != 5000 {
			t.Errorf("alice's balance %+v", got)
		}
		if got := e.Balance(bobW.ID); got.AvailableMsat != 95_000 || got.SentMsat != 5000 {
			t.Errorf("bob's balance %+v", got)
		}
		invs, _ := e.Ledger.Invoices(t.Context(), ledger.Filter{WalletID: aliceW.ID})
		if len(invs) != 1 || invs[0].Status != ledger.StatusSettled || invs[0].Ledger != ledger.LedgerInternal ||
			addressOf(t, &invs[0]) != a.ID || invs[0].Description == nil || *invs[0].Description != "hi" {
			t.Fatalf("alice's invoices %+v", invs)
		}
		// Other spellings of the same address, and an LNURL of its payRequest.
		own, err := lnurl.EncodeLNURL(public + "/.well-known/lnurlp/alice")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{"ALICE@HEARTH.TEST", "lightning:alice@hearth.test", own, "lightning:" + strings.ToLower(own)} {
			r, p := k.pay(bobTok, map[string]any{"input": in, "amount_msat": 1000})
			if r.Code != 201 || p.Ledger != ledger.LedgerInternal || p.Internal.LnAddress == nil {
				t.Errorf("paying %s: %d %s", in, r.Code, r.Body)
			}
		}
		// The fee estimate makes no invoice.
		r = k.do(bobTok, "POST", "/v1/me/payments/fee-estimate", map[string]any{"input": "alice@hearth.test", "amount_msat": 3000})
		var est ledger.FeeEstimate
		r.json(t, &est)
		if r.Code != 200 || est.Ledger != ledger.LedgerInternal || est.AmountMsat != 3000 || est.EstimatedFeeMsat == nil || *est.EstimatedFeeMsat != 0 {
			t.Errorf("fee estimate: %d %s", r.Code, r.Body)
		}
		// An Idempotency-Key replay pays once.
		body := map[string]any{"input": "alice@hearth.test", "amount_msat": 2000}
		r1, p1 := k.pay(bobTok, body, "Idempotency-Key", "k1")
		r2, p2 := k.pay(bobTok, body, "Idempotency-Key", "k1")
		if r1.Code != 201 || r2.Code != 200 || p1.ID != p2.ID {
			t.Errorf("replay: %d %d, %s %s", r1.Code, r2.Code, p1.ID, p2.ID)
		}
		invs, _ = e.Ledger.Invoices(t.Context(), ledger.Filter{WalletID: aliceW.ID})
		if len(invs) != 6 {
			t.Errorf("alice has %d invoices, want 6 (the estimate and the replay make none)", len(invs))
		}
		before := e.Balance(bobW.ID)
		for _, c := range []struct {
			token string
			body  map[string]any
			code  int
			want  string
		}{
			{bobTok, map[string]any{"input": "alice@hearth.test"}, 422, "amount_msat is required"},
			{bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 0}, 422, "invalid_amount"},
			{bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 999}, 422, "invalid_amount"},
			{bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 1000, "comment": strings.Repeat("x", 11)}, 422, "comment_too_long"},
			{bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 1_000_000}, 422, "insufficient_funds"},
			{bobTok, map[string]any{"input": "nobody@hearth.test", "amount_msat": 1000}, 422, "unknown_ln_address"},
			{aliceTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 1000}, 422, "self_payment"},
			{bobTok, map[string]any{"input": "not an address", "amount_msat": 1000}, 422, "unsupported_input"},
			{bobTok, map[string]any{"input": "a@b@hearth.test", "amount_msat": 1000}, 422, "unsupported_input"},
		} {
			r, _ := k.pay(c.token, c.body)
			if r.Code != c.code || !strings.Contains(string(r.Body), c.want) {
				t.Errorf("paying %v: %d %s, want %d %s", c.body, r.Code, r.Body, c.code, c.want)
			}
		}
		if r := k.do(aliceTok, "PUT", "/v1/me/lightning-address", map[string]any{"active": false}); r.Code != 200 {
			t.Fatal(r.Code)
		}
		if r, _ := k.pay(bobTok, map[string]any{"input": "alice@hearth.test", "amount_msat": 1000}); r.Code != 422 {
			t.Errorf("paid an inactive address: %d %s", r.Code, r.Body)
		}
		if got := e.Balance(bobW.ID); got != before {
			t.Errorf("refusals moved money: %+v, was %+v", got, before)
		}
		e.CheckLedger()
	})
}

// TestConcurrentInternalPayments races payments to one address from a
// wallet that can afford only some of them: exactly those settle.
func TestConcurrentInternalPayments(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{}, nil)
		aliceTok, aliceW := k.user("alice", 0)
		bobTok, bobW := k.user("bob", 10_500)
		carolTok, _ := k.user("carol", 3_000)
		k.register(aliceTok, "alice")
		in := "alice@" + k.cfg.Domain
		const n = 16
		codes := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				tok := bobTok
				if i%4 == 0 {
					tok = carolTok
				}
				r, _ := k.pay(tok, map[string]any{"input": in, "amount_msat": 1000})
				codes[i] = r.Code
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, c := range codes {
			switch c {
			case http.StatusCreated:
				ok++
			case http.StatusUnprocessableEntity:
			default:
				t.Errorf("a payment answered %d", c)
			}
		}
		// bob affords 10 of his 12, carol 3 of her 4.
		if ok != 13 {
			t.Errorf("%d payments settled, want 13: %v", ok, codes)
		}
		if got := e.Balance(aliceW.ID); got.AvailableMsat != 13_000 {
			t.Errorf("alice received %d msat", got.AvailableMsat)
		}
		if got := e.Balance(bobW.ID); got.AvailableMsat != 500 {
			t.Errorf("bob has %d msat left", got.AvailableMsat)
		}
		e.CheckLedger()
	})
}
