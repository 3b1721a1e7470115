package cln

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/lib/bolt11"
)

// ErrNoHashedText: lightningd commits to a description hash only given
// the description itself (invoice with deschashonly).
var ErrNoHashedText = fault.New(fault.Unprocessable, "description_hash_unsupported",
	"a cln node commits to a description hash only given the text it is the hash of")

// label is the node's label of Hearth's invoice of paymentHash.
func label(paymentHash string) string { return labelPrefix + paymentHash }

// labelPrefix starts the label of every invoice Hearth makes at the node.
const labelPrefix = "hearth:"

// CreateInvoice adds an invoice to the node. Hearth draws the preimage, so
// the ledger knows it (internal settlements carry it as their proof).
func (n *Node) CreateInvoice(ctx context.Context, req ledger.NodeInvoiceRequest) (*ledger.NodeInvoice, error) {
	var preimage [32]byte
	if _, err := rand.Read(preimage[:]); err != nil {
		return nil, err
	}
	hash := sha256.Sum256(preimage[:])
	in := invoiceRequest{
		AmountMsat:  req.AmountMsat,
		Label:       label(hex.EncodeToString(hash[:])),
		Description: req.Description,
		Expiry:      uint64(max(req.Expiry/time.Second, 1)),
		Preimage:    hex.EncodeToString(preimage[:]),
	}
	if len(req.DescriptionHash) == 32 {
		if sum := sha256.Sum256([]byte(req.HashedDescription)); hex.EncodeToString(sum[:]) != hex.EncodeToString(req.DescriptionHash) {
			return nil, ErrNoHashedText
		}
		in.Description, in.DescHashOnly = req.HashedDescription, true
	}
	var res invoiceResponse
	if err := n.call(ctx, in, &res); err != nil {
		return nil, err
	}
	if res.PaymentHash != hex.EncodeToString(hash[:]) {
		return nil, errors.New("cln answered an invoice of another payment hash")
	}
	pubkey, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	dec, err := zpay32.Decode(res.Bolt11, params)
	if err != nil {
		return nil, fmt.Errorf("decoding the node's invoice: %w", err)
	}
	if dec.PaymentHash == nil || *dec.PaymentHash != hash || dec.Destination == nil ||
		hex.EncodeToString(dec.Destination.SerializeCompressed()) != pubkey ||
		dec.MilliSat == nil || int64(*dec.MilliSat) != req.AmountMsat {
		return nil, errors.New("cln answered an invoice that is not the one asked for")
	}
	return &ledger.NodeInvoice{
		Bolt11:                  res.Bolt11,
		PaymentHash:             res.PaymentHash,
		PaymentSecret:           res.PaymentSecret,
		Preimage:                hex.EncodeToString(preimage[:]),
		PayeePubkey:             pubkey,
		MinFinalCLTVExpiryDelta: dec.MinFinalCLTVExpiry(),
		CreatedAt:               dec.Timestamp,
		Expiry:                  dec.Expiry(),
	}, nil
}

// Decode parses a BOLT11 invoice of the node's network, here: decodepay
// is gone from current lightningd, and the ledger needs no node for it.
func (n *Node) Decode(s string) (*ledger.DecodedInvoice, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	return bolt11.Decode(s, params)
}

// LookupInvoice reports whether the node's invoice was paid, or the state
// of a hold invoice (holdwatch.go).
func (n *Node) LookupInvoice(ctx context.Context, paymentHash string) (*ledger.InvoiceSettlement, error) {
	if _, err := hex.DecodeString(paymentHash); err != nil || len(paymentHash) != 64 {
		return nil, fmt.Errorf("payment hash %q: not 32 bytes of hex", paymentHash)
	}
	var res listinvoicesResponse
	if err := n.call(ctx, listinvoicesRequest{PaymentHash: paymentHash}, &res); err != nil {
		return nil, err
	}
	if len(res.Invoices) == 0 {
		if n.guard == GuardOff {
			return nil, ledger.ErrUnknownInvoice
		}
		return n.lookupHold(ctx, paymentHash)
	}
	st := settlement(res.Invoices[0])
	if err := n.withKeysend(ctx, res.Invoices[0], &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// CancelInvoice withdraws an unpaid invoice (delinvoice), or cancels a
// hold invoice (hold.go), so it cannot be
// paid from outside after the ledger settled it internally. An invoice
// the node no longer has, or that expired, is withdrawn already; one paid
// at the node answers ledger.ErrSettledAtNode.
func (n *Node) CancelInvoice(ctx context.Context, paymentHash string) error {
	err := n.call(ctx, delinvoiceRequest{Label: label(paymentHash), Status: "unpaid"}, nil)
	if code, ok := rpcCode(err); ok {
		var e *RPCError
		errors.As(err, &e)
		switch {
		case code == 905 && n.guard != GuardOff: // no such invoice: a hold invoice?
			if err := n.cancelHold(ctx, paymentHash); !errors.Is(err, ledger.ErrUnknownInvoice) {
				return err
			}
			return nil
		case code == 905:
			return nil
		case code == 906 && string(e.Data) != "" && currentStatus(e) == "expired":
			return nil
		case code == 906 && string(e.Data) != "" && currentStatus(e) == "paid":
			return fmt.Errorf("cln cancel invoice %s: %w", paymentHash, ledger.ErrSettledAtNode)
		}
	}
	if err != nil {
		return fmt.Errorf("cln cancel invoice %s: %w", paymentHash, err)
	}
	return nil
}

// currentStatus is the invoice's status that a status error (906) names.
func currentStatus(e *RPCError) string {
	var data struct {
		CurrentStatus string `json:"current_status"`
	}
	if e.ParseData(&data) != nil {
		return ""
	}
	return data.CurrentStatus
}

func settlement(inv listedInvoice) ledger.InvoiceSettlement {
	st := ledger.InvoiceSettlement{PaymentHash: inv.PaymentHash, Settled: inv.Status == "paid", Position: inv.UpdatedIndex}
	if st.Settled {
		st.AmountMsat = inv.AmountReceivedMsat
		st.Preimage = inv.PaymentPreimage
		st.SettledAt = time.Unix(inv.PaidAt, 0)
	}
	return st
}
