package lnd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/routerrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Pay sends a payment with routerrpc.SendPaymentV2 and follows it until it
// succeeds, fails, or ctx ends. A failure the node reports is definite (a
// *ledger.PaymentFailure); a payment still in flight when ctx ends comes
// back as PaymentInFlight; a broken connection is an ambiguous error. Both
// leave the payment Pending for SubscribePayments and the reconciler.
func (n *Node) Pay(ctx context.Context, req ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	dec, err := n.Decode(req.Bolt11)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: "invalid invoice: " + err.Error()}
	}
	sreq := &routerrpc.SendPaymentRequest{
		PaymentRequest: req.Bolt11,
		FeeLimitMsat:   req.MaxFeeMsat,
		TimeoutSeconds: int32(max(req.Timeout/time.Second, 1)),
	}
	if dec.AmountMsat == 0 {
		sreq.AmtMsat = req.AmountMsat
	}
	return n.send(ctx, sreq, dec.PaymentHash)
}

// Keysend sends a keysend payment: to the node req.Pubkey, with the
// preimage in custom record 5482373484 beside the payer's records, and
// follows it as Pay does.
func (n *Node) Keysend(ctx context.Context, req ledger.NodeKeysend) (*ledger.NodePaymentResult, error) {
	dest, err := hex.DecodeString(req.Pubkey)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: "invalid node key"}
	}
	preimage, err := hex.DecodeString(req.Preimage)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: "invalid preimage"}
	}
	hash, err := hex.DecodeString(req.PaymentHash)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: "invalid payment hash"}
	}
	records := map[uint64][]byte{ledger.KeysendPreimageRecord: preimage}
	for typ, v := range req.Records {
		records[typ] = v
	}
	return n.send(ctx, &routerrpc.SendPaymentRequest{
		Dest:              dest,
		AmtMsat:           req.AmountMsat,
		PaymentHash:       hash,
		DestCustomRecords: records,
		FeeLimitMsat:      req.MaxFeeMsat,
		TimeoutSeconds:    int32(max(req.Timeout/time.Second, 1)),
	}, req.PaymentHash)
}

// send starts sreq, the payment of paymentHash, and follows it until it
// succeeds, fails, or ctx ends.
func (n *Node) send(ctx context.Context, sreq *routerrpc.SendPaymentRequest, paymentHash string) (*ledger.NodePaymentResult, error) {
	stream, err := n.router.SendPaymentV2(ctx, sreq)
	if err != nil {
		return nil, fmt.Errorf("lnd send payment: %w", err)
	}
	registered := false // the node has the payment once it sent an update
	for {
		p, err := stream.Recv()
		switch {
		case err == nil:
		case ctx.Err() != nil && registered:
			return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil
		case registered:
			return nil, fmt.Errorf("lnd payment stream: %w", err)
		default:
			return nil, n.refused(ctx, paymentHash, err)
		}
		registered = true
		if res := result(p); res.State == ledger.PaymentSucceeded {
			return res, nil
		} else if res.State == ledger.PaymentFailedState {
			return nil, &ledger.PaymentFailure{Reason: res.Reason}
		}
	}
}

// refused classifies an error the node gave before it sent any update: when
// the node has no record of the payment and the error is the node's own
// answer (not a broken connection), nothing was sent.
func (n *Node) refused(ctx context.Context, paymentHash string, err error) error {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.AlreadyExists, codes.Internal:
		return fmt.Errorf("lnd send payment: %w", err)
	}
	lookupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	res, lerr := n.LookupPayment(lookupCtx, paymentHash)
	if lerr != nil || res.State != ledger.PaymentUnknown {
		return fmt.Errorf("lnd send payment: %w", err)
	}
	return &ledger.PaymentFailure{Reason: status.Convert(err).Message()}
}

// LookupPayment asks the node for an outgoing payment's current state.
func (n *Node) LookupPayment(ctx context.Context, paymentHash string) (*ledger.NodePaymentResult, error) {
	hash, err := hex.DecodeString(paymentHash)
	if err != nil {
		return nil, fmt.Errorf("payment hash: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the tracking stream after its first answer
	stream, err := n.router.TrackPaymentV2(ctx, &routerrpc.TrackPaymentRequest{PaymentHash: hash})
	if err != nil {
		return nil, fmt.Errorf("lnd track payment: %w", err)
	}
	p, err := stream.Recv()
	if status.Code(err) == codes.NotFound {
		return &ledger.NodePaymentResult{State: ledger.PaymentUnknown}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lnd track payment: %w", err)
	}
	return result(p), nil
}

// SubscribePayments delivers the final state of every outgoing payment of
// the node (routerrpc.TrackPayments) until ctx ends or the stream breaks;
// then the channel is closed.
func (n *Node) SubscribePayments(ctx context.Context) (<-chan ledger.PaymentUpdate, error) {
	stream, err := n.router.TrackPayments(ctx, &routerrpc.TrackPaymentsRequest{NoInflightUpdates: true})
	if err != nil {
		return nil, fmt.Errorf("lnd track payments: %w", err)
	}
	ch := make(chan ledger.PaymentUpdate)
	go func() {
		defer close(ch)
		for {
			p, err := stream.Recv()
			if err != nil {
				return
			}
			res := result(p)
			if res.State != ledger.PaymentSucceeded && res.State != ledger.PaymentFailedState {
				continue
			}
			select {
			case ch <- ledger.PaymentUpdate{PaymentHash: p.PaymentHash, Result: *res}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// EstimateRouteFee finds a route to the invoice's payee with QueryRoutes
// (the invoice's route hints and features included) and returns its fee.
func (n *Node) EstimateRouteFee(ctx context.Context, bolt11 string, amountMsat int64) (int64, error) {
	pr, err := n.ln.DecodePayReq(ctx, &lnrpc.PayReqString{PayReq: bolt11})
	if err != nil {
		return 0, fmt.Errorf("lnd decode invoice: %w", err)
	}
	req := &lnrpc.QueryRoutesRequest{
		PubKey:            pr.Destination,
		AmtMsat:           amountMsat,
		FinalCltvDelta:    int32(pr.CltvExpiry),
		RouteHints:        pr.RouteHints,
		UseMissionControl: true,
	}
	for bit := range pr.Features {
		req.DestFeatures = append(req.DestFeatures, lnrpc.FeatureBit(bit))
	}
	routes, err := n.ln.QueryRoutes(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("lnd query routes: %w", err)
	}
	if len(routes.Routes) == 0 {
		return 0, errors.New("lnd found no route")
	}
	return routes.Routes[0].TotalFeesMsat, nil
}

// result translates a payment of the node.
func result(p *lnrpc.Payment) *ledger.NodePaymentResult {
	switch p.Status {
	case lnrpc.Payment_SUCCEEDED:
		return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: p.FeeMsat, Preimage: p.PaymentPreimage}
	case lnrpc.Payment_FAILED:
		return &ledger.NodePaymentResult{State: ledger.PaymentFailedState, Reason: failureReason(p.FailureReason)}
	default:
		return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}
	}
}

// failureReason words the node's reason, e.g. FAILURE_REASON_NO_ROUTE as
// "no route".
func failureReason(r lnrpc.PaymentFailureReason) string {
	name := strings.TrimPrefix(r.String(), "FAILURE_REASON_")
	return strings.ToLower(strings.ReplaceAll(name, "_", " "))
}
