package cln

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lightningnetwork/lnd/record"

	"github.com/hearthwallet/hearth/core/ledger"
)

// A keysend on Core Lightning, with Hearth's preimage: lightningd's own
// keysend command draws the preimage itself, and the ledger records the
// payment under its hash before the node sends it. So the backend routes
// it at the source, as lightningd's pay plugins do: getroutes
// (keysendroute.go), the hops' payloads (onion.go), createonion committed
// to the payment hash, sendonion to the first hop, waitsendpay; a hop
// that fails it is left out and another route tried, a few times within
// the timeout, while a mark in the datastore keeps the payment in flight
// between tries (keysendmark.go).

// keysendTries bounds the routes one keysend tries.
const keysendTries = 5

// keysendFinalCLTV is the blocks the payee's HTLC has to spare: what lnd
// sends a keysend with.
const keysendFinalCLTV = 40

// Keysend pays req by source routing with req's preimage. A
// *ledger.PaymentFailure is definite: no route, a route over the fee cap,
// the payee's refusal, or every route tried failed with no part pending.
// A try still pending at the timeout is PaymentInFlight; an answer lost
// on the way (the connection, ctx) is PaymentInFlight or the outcome when
// listpays shows it, otherwise an ambiguous error.
func (n *Node) Keysend(ctx context.Context, req ledger.NodeKeysend) (*ledger.NodePaymentResult, error) {
	final, err := keysendRecords(req)
	if err != nil {
		return nil, &ledger.PaymentFailure{Reason: err.Error()}
	}
	deadline := time.Now().Add(max(req.Timeout, time.Second))
	if err := n.markKeysend(ctx, req.PaymentHash, deadline.Add(markSlack)); err != nil {
		return nil, &ledger.PaymentFailure{Reason: "the node did not take the keysend: " + err.Error()}
	}
	defer n.unmarkKeysend(ctx, req.PaymentHash)
	layer := ""
	for try := 1; ; try++ {
		res, failed, err := n.tryKeysend(ctx, req, final, layer, deadline)
		switch {
		case err != nil || res != nil:
			return res, err
		case failed.exclude == "" || try == keysendTries || !time.Now().Before(deadline):
			return nil, &ledger.PaymentFailure{Reason: failed.reason}
		}
		if err := n.leaveOut(ctx, keysendLayer(req.PaymentHash), layer != "", failed.exclude); err != nil {
			return nil, &ledger.PaymentFailure{Reason: failed.reason + " (and leaving it out: " + err.Error() + ")"}
		}
		if layer == "" {
			layer = keysendLayer(req.PaymentHash)
			defer n.removeLayer(ctx, layer)
		}
	}
}

// failedTry is a route that failed for good: why, and what to exclude
// from the next ("" to stop).
type failedTry struct{ reason, exclude string }

// tryKeysend sends the keysend along one route. It returns the outcome, or
// a failedTry when nothing of it is pending, or an ambiguous error.
func (n *Node) tryKeysend(ctx context.Context, req ledger.NodeKeysend, final record.CustomSet, layer string, deadline time.Time) (*ledger.NodePaymentResult, *failedTry, error) {
	info, err := n.getinfo(ctx)
	if err != nil {
		return nil, &failedTry{reason: "asking the node its height: " + err.Error()}, nil
	}
	route, err := n.keysendRoute(ctx, info.ID, req.Pubkey, req.AmountMsat, req.MaxFeeMsat, layer)
	if err != nil {
		return nil, &failedTry{reason: "no route: " + err.Error()}, nil
	}
	first := route[0]
	if fee := first.AmountMsat - req.AmountMsat; fee > req.MaxFeeMsat {
		return nil, &failedTry{reason: fmt.Sprintf("the route costs %d msat in fees, over the maximum %d", fee, req.MaxFeeMsat)}, nil
	}
	hops, err := onionHops(route, info.Blockheight, final)
	if err != nil {
		return nil, &failedTry{reason: err.Error()}, nil
	}
	var onion createonionResponse
	if err := n.call(ctx, createonionRequest{Hops: hops, AssocData: req.PaymentHash}, &onion); err != nil {
		return nil, &failedTry{reason: "making the onion: " + err.Error()}, nil
	}
	send := sendonionRequest{Onion: onion.Onion, FirstHop: firstHop{ID: first.ID, AmountMsat: first.AmountMsat, Delay: first.Delay},
		PaymentHash: req.PaymentHash, Label: "hearth keysend", SharedSecrets: onion.SharedSecrets,
		AmountMsat: req.AmountMsat, Destination: req.Pubkey}
	if err := n.call(ctx, send, nil); err != nil {
		return n.afterError(ctx, req, err)
	}
	wait := waitsendpayRequest{PaymentHash: req.PaymentHash, Timeout: uint32(max(time.Until(deadline)/time.Second, 1))}
	var sent sentPayment
	err = n.call(ctx, wait, &sent)
	if code, ok := rpcCode(err); ok && code == codePayInProgress {
		return &ledger.NodePaymentResult{State: ledger.PaymentInFlight}, nil, nil
	} else if err != nil {
		return n.afterError(ctx, req, err)
	}
	return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: sent.AmountSentMsat - req.AmountMsat, Preimage: sent.PaymentPreimage}, nil, nil
}

// afterError reads err, which sendonion or waitsendpay answered, against
// what listpays says of the payment: a part pending, or the payment
// complete, is the outcome; with none, the node's error fails the try
// (excluding the hop that failed it, unless it is the payee); any other
// error is ambiguous.
func (n *Node) afterError(ctx context.Context, req ledger.NodeKeysend, err error) (*ledger.NodePaymentResult, *failedTry, error) {
	lookupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now, lerr := n.listedPayment(lookupCtx, req.PaymentHash)
	var rpcErr *RPCError
	switch {
	case lerr != nil:
		return nil, nil, fmt.Errorf("%w (and looking it up: %v)", err, lerr)
	case now.State == ledger.PaymentSucceeded || now.State == ledger.PaymentInFlight:
		return now, nil, nil
	case !errors.As(err, &rpcErr):
		return nil, nil, err // the answer was lost: the node may have it and not list it yet
	}
	var rf routingFailure
	if rpcErr.Code != codePayTryOtherRoute || rpcErr.ParseData(&rf) != nil {
		return nil, &failedTry{reason: rpcErr.Message}, nil
	}
	reason := rpcErr.Message
	switch {
	case rf.ErringNode == req.Pubkey:
	case rf.FailCode&0x2000 != 0 && rf.ErringNode != "" && rf.ErringIndex > 0: // BOLT 4's NODE flag
		return nil, &failedTry{reason: reason, exclude: rf.ErringNode}, nil
	case rf.ErringChannel != "" && rf.ErringDirection != nil:
		return nil, &failedTry{reason: reason, exclude: fmt.Sprintf("%s/%d", rf.ErringChannel, *rf.ErringDirection)}, nil
	}
	return nil, &failedTry{reason: reason}, nil
}

// keysendRecords checks req's keys and returns the last hop's records:
// the payer's and the preimage.
func keysendRecords(req ledger.NodeKeysend) (record.CustomSet, error) {
	if dest, err := hex.DecodeString(req.Pubkey); err != nil || len(dest) != 33 {
		return nil, errors.New("invalid node key")
	}
	preimage, err := hex.DecodeString(req.Preimage)
	if err != nil || len(preimage) != 32 {
		return nil, errors.New("invalid preimage")
	}
	if sum := sha256.Sum256(preimage); hex.EncodeToString(sum[:]) != req.PaymentHash {
		return nil, errors.New("the payment hash is not the preimage's")
	}
	records := record.CustomSet{ledger.KeysendPreimageRecord: preimage}
	for typ, v := range req.Records {
		records[typ] = v
	}
	return records, nil
}

var _ ledger.KeysendPayer = (*Node)(nil)
