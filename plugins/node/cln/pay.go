package cln

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Pay pays with xpay and waits for its answer until ctx ends. xpay answers
// once the payment succeeded or every part of it failed, so an error the
// node answers is definite (a *ledger.PaymentFailure) unless the node
// still has a record of the payment that says otherwise (an earlier
// attempt in flight or complete). A call whose answer never comes (ctx
// ended, the node went away) leaves the payment at the node: it is
// PaymentInFlight when listpays shows it, and an ambiguous error when the
// node cannot say; both leave the ledger's payment Pending for
// SubscribePayments and the reconciler.
func (n *Node) Pay(ctx context.Context, req ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	dec, err := n.Decode(req.Bolt11)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: "invalid invoice: " + err.Error()}
	}
	maxFee := req.MaxFeeMsat
	x := xpayRequest{Invstring: req.Bolt11, MaxFee: &maxFee, RetryFor: uint32(max(req.Timeout/time.Second, 1))}
	if dec.AmountMsat == 0 {
		x.AmountMsat = req.AmountMsat
	}
	var res xpayResponse
	err = n.call(ctx, x, &res)
	if err == nil {
		return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: res.AmountSentMsat - res.AmountMsat, Preimage: res.PaymentPreimage}, nil
	}
	lookupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now, lerr := n.LookupPayment(lookupCtx, dec.PaymentHash)
	var rpcErr *RPCError
	switch {
	case lerr != nil:
		return nil, fmt.Errorf("%w (and looking it up: %v)", err, lerr)
	case now.State == ledger.PaymentSucceeded || now.State == ledger.PaymentInFlight:
		return now, nil
	case errors.As(err, &rpcErr):
		return nil, &ledger.PaymentFailure{Reason: rpcErr.Message}
	}
	return nil, err // ambiguous: the node may have it and not say yet
}

// LookupPayment sums up what listpays says of the payments of the hash: a
// complete one is the outcome; otherwise one in flight; otherwise failed
// (in flight while a keysend of the hash still tries routes:
// keysendmark.go); PaymentUnknown when the node never sent it.
func (n *Node) LookupPayment(ctx context.Context, paymentHash string) (*ledger.NodePaymentResult, error) {
	res, err := n.listedPayment(ctx, paymentHash)
	if err != nil || res.State != ledger.PaymentFailedState {
		return res, err
	}
	trying, err := n.keysendTrying(ctx, paymentHash)
	if err != nil {
		return nil, err
	}
	if trying {
		return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
	}
	return res, nil
}

// listedPayment is what listpays alone says of the payments of the hash.
func (n *Node) listedPayment(ctx context.Context, paymentHash string) (*ledger.NodePaymentResult, error) {
	var res listpaysResponse
	if err := n.call(ctx, listpaysRequest{PaymentHash: paymentHash}, &res); err != nil {
		return nil, err
	}
	out := &ledger.NodePaymentResult{State: ledger.PaymentUnknown}
	for _, p := range res.Pays {
		switch p.Status {
		case "complete":
			return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: p.AmountSentMsat - p.AmountMsat, Preimage: p.Preimage}, nil
		case "pending":
			out.State = ledger.PaymentInFlight
		case "failed":
			if out.State == ledger.PaymentUnknown {
				out = &ledger.NodePaymentResult{State: ledger.PaymentFailedState, Reason: "the node failed the payment"}
			}
		}
	}
	if out.State == ledger.PaymentInFlight {
		out.Reason = ""
	}
	return out, nil
}
