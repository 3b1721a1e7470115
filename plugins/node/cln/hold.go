package cln

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/elementsproject/glightning/jrpc2"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Hearth's side of hold invoices on Core Lightning (holdwire.go): the
// record and the signed invoice, and the guard plugin's methods to settle,
// cancel and follow them.

// CreateHoldInvoice stores the terms of a hold invoice for req.PaymentHash
// and has lightningd sign the invoice. It needs the guard plugin, which
// holds the payment: with Config.Guard "off" there is none.
func (n *Node) CreateHoldInvoice(ctx context.Context, req ledger.NodeHoldRequest) (*ledger.NodeInvoice, error) {
	if n.guard == GuardOff {
		return nil, ledger.ErrNoHoldInvoices.Reasonf("node.cln.guard is off: the guard plugin holds a Core Lightning node's hold invoices")
	}
	hash, err := hex.DecodeString(req.PaymentHash)
	if err != nil || len(hash) != 32 {
		return nil, errors.New("payment hash must be 32 bytes, hex")
	}
	pubkey, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return nil, err
	}
	now := time.Now()
	unsigned, err := holdInvoice(params, [32]byte(hash), secret, now, req)
	if err != nil {
		return nil, err
	}
	rec, err := json.Marshal(holdRecord{
		AmountMsat: req.AmountMsat, PaymentSecret: hex.EncodeToString(secret[:]),
		CLTV: int64(req.MinFinalCLTVExpiryDelta), ExpiresAt: now.Add(req.Expiry).Unix(), State: holdOpen,
	})
	if err != nil {
		return nil, err
	}
	// The terms first: an HTLC that arrives as soon as the invoice exists
	// is held.
	if err := n.storeTerms(ctx, req.PaymentHash, string(rec)); err != nil {
		return nil, err
	}
	if err := n.pluginHolds(ctx, req.PaymentHash); err != nil {
		return nil, err
	}
	var signed struct {
		Bolt11 string `json:"bolt11"`
	}
	if err := n.call(ctx, signinvoiceRequest{InvString: unsigned}, &signed); err != nil {
		return nil, err
	}
	dec, err := zpay32.Decode(signed.Bolt11, params)
	if err != nil {
		return nil, fmt.Errorf("decoding the node's signed invoice: %w", err)
	}
	if dec.PaymentHash == nil || hex.EncodeToString(dec.PaymentHash[:]) != req.PaymentHash || dec.Destination == nil ||
		hex.EncodeToString(dec.Destination.SerializeCompressed()) != pubkey ||
		dec.MilliSat == nil || int64(*dec.MilliSat) != req.AmountMsat {
		return nil, errors.New("cln signed an invoice that is not the one asked for")
	}
	return &ledger.NodeInvoice{
		Bolt11:                  signed.Bolt11,
		PaymentHash:             req.PaymentHash,
		PaymentSecret:           hex.EncodeToString(secret[:]),
		PayeePubkey:             pubkey,
		MinFinalCLTVExpiryDelta: dec.MinFinalCLTVExpiry(),
		CreatedAt:               dec.Timestamp,
		Expiry:                  dec.Expiry(),
	}, nil
}

// storeTerms writes the terms of a new hold invoice. Terms of the hash
// left open and never paid, by a creation that failed after writing them
// (the books have no invoice of the hash), are replaced; any others are
// refused.
func (n *Node) storeTerms(ctx context.Context, hash, terms string) error {
	err := n.call(ctx, datastoreRequest{Key: holdKey(hash), String: terms, Mode: "must-create"}, nil)
	if err == nil {
		return nil
	}
	left, rerr := n.holdRecord(ctx, hash)
	if rerr != nil || left == nil || left.State != holdOpen || left.Accepted {
		return fmt.Errorf("storing the hold invoice's terms: %w", err)
	}
	if err := n.call(ctx, datastoreRequest{Key: holdKey(hash), String: terms, Mode: "must-replace"}, nil); err != nil {
		return fmt.Errorf("storing the hold invoice's terms over a failed creation's: %w", err)
	}
	return nil
}

// pluginHolds checks that the guard plugin runs and reads the record of
// hash. With Config.Guard "auto", a plugin not started yet (Hearth just
// started, or lightningd restarted) is started, and waited for a while.
func (n *Node) pluginHolds(ctx context.Context, hash string) error {
	_, err := n.holdState(ctx, holdWaitRequest{PaymentHash: hash, Seen: "-"})
	if code, ok := rpcCode(err); ok && code == rpcUnknownCommand && n.guard == GuardAuto {
		_ = n.startPlugin(ctx) // fails when the guard is starting it meanwhile
		ctx, cancel := context.WithTimeout(ctx, pluginStartWait)
		defer cancel()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for code == rpcUnknownCommand {
			select {
			case <-ctx.Done():
				return fmt.Errorf("the guard plugin, which holds hold invoices, did not start: %w", err)
			case <-tick.C:
			}
			_, err = n.holdState(ctx, holdWaitRequest{PaymentHash: hash, Seen: "-"})
			code, _ = rpcCode(err)
		}
	}
	if err != nil {
		return fmt.Errorf("the guard plugin, which holds hold invoices, does not answer: %w", err)
	}
	return nil
}

// pluginStartWait bounds the wait for the guard plugin to start.
const pluginStartWait = 10 * time.Second

// rpcUnknownCommand is JSON-RPC's "method not found".
const rpcUnknownCommand = -32601

// holdInvoice encodes the BOLT11 invoice of a hold invoice, signed with a
// throwaway key: signinvoice ignores the signature and signs it with the
// node's.
func holdInvoice(params *chaincfg.Params, hash, secret [32]byte, now time.Time, req ledger.NodeHoldRequest) (string, error) {
	features := lnwire.NewFeatureVector(lnwire.NewRawFeatureVector(
		lnwire.TLVOnionPayloadRequired, lnwire.PaymentAddrRequired, lnwire.MPPOptional), lnwire.Features)
	opts := []func(*zpay32.Invoice){
		zpay32.Amount(lnwire.MilliSatoshi(req.AmountMsat)),
		zpay32.Expiry(req.Expiry),
		zpay32.CLTVExpiry(req.MinFinalCLTVExpiryDelta),
		zpay32.PaymentAddr(secret),
		zpay32.Features(features),
	}
	if len(req.DescriptionHash) == 32 {
		opts = append(opts, zpay32.DescriptionHash([32]byte(req.DescriptionHash)))
	} else {
		opts = append(opts, zpay32.Description(req.Description))
	}
	inv, err := zpay32.NewInvoice(params, hash, now, opts...)
	if err != nil {
		return "", fmt.Errorf("building the hold invoice: %w", err)
	}
	key, err := btcec.NewPrivateKey()
	if err != nil {
		return "", err
	}
	return inv.Encode(zpay32.MessageSigner{SignCompact: func(msg []byte) ([]byte, error) {
		return ecdsa.SignCompact(key, msg, true), nil
	}})
}

// SettleHoldInvoice has the guard plugin resolve the HTLCs it holds for
// the hold invoice of preimage's hash. One settled before is no error.
func (n *Node) SettleHoldInvoice(ctx context.Context, preimage string) error {
	raw, err := hex.DecodeString(preimage)
	if err != nil || len(raw) != 32 {
		return errors.New("preimage must be 32 bytes, hex")
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	st, err := n.holdState(ctx, holdSettleRequest{PaymentHash: hash, Preimage: preimage})
	if err != nil {
		return fmt.Errorf("cln settle hold invoice %s: %w", hash, err)
	}
	if st.Refused != "" {
		return fmt.Errorf("cln settle hold invoice %s: the guard plugin refused (%s, the invoice is %s)", hash, st.Refused, st.State)
	}
	return nil
}

// cancelHold cancels the hold invoice of hash, if there is one:
// ledger.ErrUnknownInvoice when there is none. Without the plugin, which
// then holds nothing, the record alone is marked cancelled.
func (n *Node) cancelHold(ctx context.Context, hash string) error {
	st, err := n.holdState(ctx, holdCancelRequest{PaymentHash: hash})
	if err != nil {
		rec, rerr := n.holdRecord(ctx, hash)
		switch {
		case rerr != nil:
			return errors.Join(err, rerr)
		case rec == nil:
			return ledger.ErrUnknownInvoice
		case rec.State == holdSettled:
			return fmt.Errorf("cln cancel hold invoice %s: %w", hash, ledger.ErrSettledAtNode)
		}
		rec.State = holdCancelled
		raw, _ := json.Marshal(rec)
		return n.call(ctx, datastoreRequest{Key: holdKey(hash), String: string(raw), Mode: "must-replace"}, nil)
	}
	switch st.Refused {
	case "":
		return nil
	case refusedUnknown:
		return ledger.ErrUnknownInvoice
	case refusedState:
		return fmt.Errorf("cln cancel hold invoice %s: %w", hash, ledger.ErrSettledAtNode)
	}
	return fmt.Errorf("cln cancel hold invoice %s: the guard plugin refused (%s)", hash, st.Refused)
}

// holdRecord reads the record of the hold invoice of hash: nil if none.
func (n *Node) holdRecord(ctx context.Context, hash string) (*holdRecord, error) {
	var res listdatastoreResponse
	if err := n.call(ctx, listdatastoreRequest{Key: holdKey(hash)}, &res); err != nil {
		return nil, err
	}
	if len(res.Datastore) == 0 || res.Datastore[0].String == nil {
		return nil, nil
	}
	return decodeHoldRecord(*res.Datastore[0].String)
}

// holdState calls one of the plugin's methods.
func (n *Node) holdState(ctx context.Context, m jrpc2.Method) (*holdState, error) {
	var st holdState
	if err := n.call(ctx, m, &st); err != nil {
		return nil, err
	}
	return &st, nil
}
