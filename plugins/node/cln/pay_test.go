package cln_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
)

func pay(n *cln.Node, ctx context.Context, bolt11 string, amount int64) (*ledger.NodePaymentResult, error) {
	return n.Pay(ctx, ledger.NodePayment{Bolt11: bolt11, AmountMsat: amount, MaxFeeMsat: 5_000, Timeout: 30 * time.Second})
}

// What xpay answers, as the ledger needs it: success with the fee and the
// preimage; a refusal as a definite failure with the node's words; an
// invoice already paid as the success it was.
func TestPayOutcomes(t *testing.T) {
	n, d := backend(t)
	ctx := context.Background()

	open, hash, err := d.PeerInvoice(0, "any amount", clntest.Settle)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pay(n, ctx, open, 120_000)
	if err != nil || res.State != ledger.PaymentSucceeded || res.FeeMsat != 1_120 || len(res.Preimage) != 64 {
		t.Fatalf("amountless invoice: %+v %v", res, err)
	}
	again, err := pay(n, ctx, open, 120_000)
	if err != nil || *again != *res || d.PaymentCount(hash) != 1 {
		t.Fatalf("paid twice: %+v %v (%d payments)", again, err, d.PaymentCount(hash))
	}

	if fee, err := n.EstimateRouteFee(ctx, open, 120_000); err != nil || fee != 1_120 {
		t.Fatalf("estimate = %d %v", fee, err)
	}
	stranger, _ := clntest.StrangerInvoice(1_000)
	if fee, err := n.EstimateRouteFee(ctx, stranger, 1_000); err == nil {
		t.Fatalf("estimate to a stranger = %d", fee)
	}

	rejected, _, _ := d.PeerInvoice(40_000, "refused", clntest.Reject)
	_, err = pay(n, ctx, rejected, 0)
	var pf *ledger.PaymentFailure
	if !errors.As(err, &pf) || !strings.Contains(pf.Reason, "incorrect_or_unknown_payment_details") {
		t.Fatalf("rejected by the payee: %v", err)
	}

	dear, _, _ := d.PeerInvoice(4_500_000, "too dear", clntest.Settle) // fee 5_500 > 5_000
	if _, err = pay(n, ctx, dear, 0); !errors.As(err, &pf) || !strings.Contains(pf.Reason, "maxfee") {
		t.Fatalf("over the fee cap: %v", err)
	}

	big, _, _ := d.PeerInvoice(0, "over capacity", clntest.Settle)
	if _, err = n.Pay(ctx, ledger.NodePayment{Bolt11: big, AmountMsat: 7_000_000_000, MaxFeeMsat: 8_000_000, Timeout: time.Second}); !errors.As(err, &pf) {
		t.Fatalf("over capacity: %v", err)
	}

	if _, err = pay(n, ctx, "lnbc1notaninvoice", 0); !errors.As(err, &pf) {
		t.Fatalf("garbage: %v", err)
	}
}

// A payment the payee holds outlasts the call: Pay answers in flight when
// its context ends, the node keeps paying, and LookupPayment and
// SubscribePayments report the outcome.
func TestPaymentHangs(t *testing.T) {
	n, d := backend(t)
	bolt11, hash, _ := d.PeerInvoice(30_000, "held", clntest.Hold)
	sctx, stop := context.WithCancel(context.Background())
	defer stop()
	updates, err := n.SubscribePayments(sctx)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		d.WaitHeld(context.Background(), hash) //nolint:errcheck // the test fails below if it is never held
		cancel()
	}()
	res, err := pay(n, ctx, bolt11, 0)
	if err != nil || res.State != ledger.PaymentInFlight {
		t.Fatalf("held payment: %+v %v", res, err)
	}
	if now, err := n.LookupPayment(context.Background(), hash); err != nil || now.State != ledger.PaymentInFlight {
		t.Fatalf("lookup while held: %+v %v", now, err)
	}
	if err := d.SettleHold(hash); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		if u.PaymentHash != hash || u.Result.State != ledger.PaymentSucceeded || u.Result.FeeMsat != 1_030 {
			t.Fatalf("update = %+v", u)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no payment update")
	}
	if now, err := n.LookupPayment(context.Background(), hash); err != nil || now.State != ledger.PaymentSucceeded {
		t.Fatalf("lookup after settlement: %+v %v", now, err)
	}
	if now, err := n.LookupPayment(context.Background(), strings.Repeat("ab", 32)); err != nil || now.State != ledger.PaymentUnknown {
		t.Fatalf("lookup of a payment never made: %+v %v", now, err)
	}
}

// The socket closes in the middle of xpay: the node never ran it and says
// so, but the backend cannot know that from a lost connection alone, so
// the answer is ambiguous (no PaymentFailure); the ledger's reconciler
// then finds the payment unknown to the node.
func TestSocketClosesMidPay(t *testing.T) {
	n, d := backend(t)
	bolt11, hash, _ := d.PeerInvoice(10_000, "lost", clntest.Settle)
	d.CloseNext("xpay")
	res, err := pay(n, context.Background(), bolt11, 0)
	var pf *ledger.PaymentFailure
	if err == nil || errors.As(err, &pf) || !errors.Is(err, cln.ErrConnectionLost) {
		t.Fatalf("pay over a closing socket: %+v %v", res, err)
	}
	if d.PaymentCount(hash) != 0 {
		t.Fatal("the node paid")
	}
	// The streams end when the node goes away.
	ch, err := n.SubscribeInvoices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d.Kill()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a settlement from a dead node")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the invoice stream outlived the node")
	}
}
