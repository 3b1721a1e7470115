package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// fakeResolver pays "pay:<n>" inputs with the invoice of a test, keeping
// an address and a success action whose finish hook appends the preimage.
type fakeResolver struct {
	bolt11 string
	asked  []bool // estimate flags
}

func (r *fakeResolver) ResolvePayment(_ context.Context, _ string, req ledger.PayRequest, estimate bool) (*ledger.Resolved, error) {
	if req.Input != "pay:them" {
		return nil, ledger.ErrUnsupportedInput
	}
	r.asked = append(r.asked, estimate)
	if req.AmountMsat == nil {
		return nil, ledger.ErrInvalidAmount
	}
	return &ledger.Resolved{Bolt11: r.bolt11, AmountMsat: *req.AmountMsat, LnAddress: "them@example.com",
		SuccessAction: json.RawMessage(`{"tag":"aes"}`),
		Finish: func(preimage string) json.RawMessage {
			b, _ := json.Marshal(map[string]string{"tag": "aes", "plaintext": preimage})
			return b
		}}, nil
}

// TestResolvers pays an input only a resolver knows: the record keeps its
// address and success action, the finish hook rewrites the action once the
// payment settles, at once or later (a payment the node left in flight);
// inputs no resolver knows stay unsupported.
func TestResolvers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 1_000_000)
		r := &fakeResolver{}
		f.ledger.AddResolver(r)
		amount := int64(10_000)
		if _, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: "pay:nobody", AmountMsat: &amount}); !errors.Is(err, ledger.ErrUnsupportedInput) {
			t.Fatalf("an input no resolver knows: %v", err)
		}
		// Settled at once.
		r.bolt11 = f.node.external(amount)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: 10, Preimage: "ab"}, nil
		}
		est, err := f.ledger.EstimateFee(ctx, f.wallet, ledger.PayRequest{Input: "pay:them", AmountMsat: &amount})
		if err != nil || est.AmountMsat != amount || est.Ledger != ledger.LedgerLightning {
			t.Fatalf("estimate %+v %v", est, err)
		}
		p, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: "pay:them", AmountMsat: &amount})
		if err != nil || p.Status != ledger.StatusSettled || p.Lightning == nil || p.Lightning.LnAddress == nil ||
			*p.Lightning.LnAddress != "them@example.com" || string(p.Lightning.SuccessAction) != `{"plaintext":"ab","tag":"aes"}` {
			t.Fatalf("payment %+v %v", p, err)
		}
		if len(r.asked) != 2 || !r.asked[0] || r.asked[1] {
			t.Errorf("estimate flags %v, want [true false]", r.asked)
		}
		// Left in flight, settled later.
		r.bolt11 = f.node.external(amount)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
		}
		p, _, err = f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: "pay:them", AmountMsat: &amount})
		if err != nil || p.Status != ledger.StatusPending || string(p.Lightning.SuccessAction) != `{"tag":"aes"}` {
			t.Fatalf("in-flight payment %+v %v", p, err)
		}
		if err := f.ledger.SettlePayment(ctx, p.ID, 5, "cd"); err != nil {
			t.Fatal(err)
		}
		got, err := f.ledger.Payment(ctx, f.wallet, p.ID)
		if err != nil || string(got.Lightning.SuccessAction) != `{"plaintext":"cd","tag":"aes"}` {
			t.Fatalf("late-settled payment %+v %v", got, err)
		}
		f.check(t)
	})
}
