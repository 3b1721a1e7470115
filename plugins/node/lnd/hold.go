package lnd

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Hold invoices (core/ledger/hold.go) through lnd's invoicesrpc: an
// invoice added for a payment hash alone (AddHoldInvoice), whose HTLCs lnd
// holds until SettleInvoice gives it the preimage or CancelInvoice fails
// them back. lnd's stream of every invoice leaves out the accepted and
// cancelled ones, so the ledger watches each (WatchHold).

// CreateHoldInvoice adds a hold invoice for req.PaymentHash to the node.
func (n *Node) CreateHoldInvoice(ctx context.Context, req ledger.NodeHoldRequest) (*ledger.NodeInvoice, error) {
	hash, err := hex.DecodeString(req.PaymentHash)
	if err != nil || len(hash) != 32 {
		return nil, errors.New("payment hash must be 32 bytes, hex")
	}
	in := &invoicesrpc.AddHoldInvoiceRequest{
		Hash:       hash,
		ValueMsat:  req.AmountMsat,
		Expiry:     int64(req.Expiry / time.Second),
		CltvExpiry: req.MinFinalCLTVExpiryDelta,
	}
	if len(req.DescriptionHash) == 32 {
		in.DescriptionHash = req.DescriptionHash
	} else {
		in.Memo = req.Description
	}
	res, err := n.invoices.AddHoldInvoice(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("lnd add hold invoice: %w", err)
	}
	return n.issued(ctx, res.PaymentRequest, req.PaymentHash, res.PaymentAddr)
}

// SettleHoldInvoice gives lnd the preimage of an accepted hold invoice. An
// invoice lnd settled before is no error.
func (n *Node) SettleHoldInvoice(ctx context.Context, preimage string) error {
	raw, err := hex.DecodeString(preimage)
	if err != nil || len(raw) != 32 {
		return errors.New("preimage must be 32 bytes, hex")
	}
	_, err = n.invoices.SettleInvoice(ctx, &invoicesrpc.SettleInvoiceMsg{Preimage: raw})
	if err != nil && strings.Contains(err.Error(), lndAlreadySettled) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lnd settle invoice: %w", err)
	}
	return nil
}

// WatchHold follows the hold invoice of paymentHash through lnd's
// SubscribeSingleInvoice until it is settled or cancelled, ctx ends or
// the stream breaks.
func (n *Node) WatchHold(ctx context.Context, paymentHash string) (<-chan ledger.InvoiceSettlement, error) {
	hash, err := hex.DecodeString(paymentHash)
	if err != nil {
		return nil, fmt.Errorf("payment hash: %w", err)
	}
	stream, err := n.invoices.SubscribeSingleInvoice(ctx, &invoicesrpc.SubscribeSingleInvoiceRequest{RHash: hash})
	if err != nil {
		return nil, fmt.Errorf("lnd subscribe single invoice: %w", err)
	}
	final := func(st ledger.InvoiceSettlement) bool { return st.Settled || st.Cancelled }
	// An open invoice: nothing arrived yet.
	return forward(ctx, stream.Recv, func(st ledger.InvoiceSettlement) bool { return st.Held || final(st) }, final), nil
}

// heldUntil is the lowest expiry height of the HTLCs inv holds.
func heldUntil(inv *lnrpc.Invoice) int64 {
	var until int64
	for _, h := range inv.Htlcs {
		if h.State == lnrpc.InvoiceHTLCState_ACCEPTED && (until == 0 || int64(h.ExpiryHeight) < until) {
			until = int64(h.ExpiryHeight)
		}
	}
	return until
}

var (
	_ ledger.HoldNode       = (*Node)(nil)
	_ ledger.HoldWatcher    = (*Node)(nil)
	_ ledger.KeysendPayer   = (*Node)(nil)
	_ ledger.InvoiceResumer = (*Node)(nil)
)
