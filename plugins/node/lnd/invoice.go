package lnd

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/invoicesrpc"
	"github.com/lightningnetwork/lnd/zpay32"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/lib/bolt11"
)

// CreateInvoice adds an invoice to the node. Hearth draws the preimage, so
// the ledger knows it (internal settlements carry it as their proof).
func (n *Node) CreateInvoice(ctx context.Context, req ledger.NodeInvoiceRequest) (*ledger.NodeInvoice, error) {
	var preimage [32]byte
	if _, err := rand.Read(preimage[:]); err != nil {
		return nil, err
	}
	in := &lnrpc.Invoice{
		ValueMsat: req.AmountMsat,
		Expiry:    int64(req.Expiry / time.Second),
		RPreimage: preimage[:],
	}
	if len(req.DescriptionHash) == 32 {
		in.DescriptionHash = req.DescriptionHash
	} else {
		in.Memo = req.Description
	}
	res, err := n.ln.AddInvoice(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("lnd add invoice: %w", err)
	}
	hash := sha256.Sum256(preimage[:])
	out, err := n.issued(ctx, res.PaymentRequest, hex.EncodeToString(hash[:]), res.PaymentAddr)
	if err != nil {
		return nil, err
	}
	out.Preimage = hex.EncodeToString(preimage[:])
	return out, nil
}

// issued is the invoice the node answered, bolt11, which must be for
// paymentHash, with its payment secret.
func (n *Node) issued(ctx context.Context, bolt11, paymentHash string, secret []byte) (*ledger.NodeInvoice, error) {
	pubkey, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	inv, err := zpay32.Decode(bolt11, params)
	if err != nil {
		return nil, fmt.Errorf("decoding the node's invoice: %w", err)
	}
	if inv.PaymentHash == nil || hex.EncodeToString(inv.PaymentHash[:]) != paymentHash {
		return nil, errors.New("lnd answered an invoice of another payment hash")
	}
	return &ledger.NodeInvoice{
		Bolt11:                  bolt11,
		PaymentHash:             paymentHash,
		PaymentSecret:           hex.EncodeToString(secret),
		PayeePubkey:             pubkey,
		MinFinalCLTVExpiryDelta: inv.MinFinalCLTVExpiry(),
		CreatedAt:               inv.Timestamp,
		Expiry:                  inv.Expiry(),
	}, nil
}

// Decode parses a BOLT11 invoice of the node's network.
func (n *Node) Decode(s string) (*ledger.DecodedInvoice, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, params, err := n.identity(ctx)
	if err != nil {
		return nil, err
	}
	return bolt11.Decode(s, params)
}

// LookupInvoice reports whether the node's invoice was paid.
func (n *Node) LookupInvoice(ctx context.Context, paymentHash string) (*ledger.InvoiceSettlement, error) {
	hash, err := hex.DecodeString(paymentHash)
	if err != nil {
		return nil, fmt.Errorf("payment hash: %w", err)
	}
	inv, err := n.ln.LookupInvoice(ctx, &lnrpc.PaymentHash{RHash: hash})
	if status.Code(err) == codes.NotFound {
		return nil, ledger.ErrUnknownInvoice
	}
	if err != nil {
		return nil, fmt.Errorf("lnd lookup invoice: %w", err)
	}
	st := settlement(inv)
	return &st, nil
}

// CancelInvoice withdraws an open invoice, so it cannot be paid from
// outside after the ledger settled it internally. lnd answers an invoice
// cancelled before as it does a fresh cancel; it tells an invoice that was
// paid, or that it does not know, only in its error's text (its
// invoices.ErrInvoiceAlreadySettled and ErrInvoiceNotFound), which are
// ledger.ErrSettledAtNode and ledger.ErrUnknownInvoice here.
func (n *Node) CancelInvoice(ctx context.Context, paymentHash string) error {
	hash, err := hex.DecodeString(paymentHash)
	if err != nil {
		return fmt.Errorf("payment hash: %w", err)
	}
	_, err = n.invoices.CancelInvoice(ctx, &invoicesrpc.CancelInvoiceMsg{PaymentHash: hash})
	switch {
	case err == nil:
		return nil
	case status.Code(err) == codes.Unknown && strings.Contains(status.Convert(err).Message(), lndAlreadySettled):
		return fmt.Errorf("lnd cancel invoice %s: %w", paymentHash, ledger.ErrSettledAtNode)
	case status.Code(err) == codes.NotFound ||
		status.Code(err) == codes.Unknown && strings.Contains(status.Convert(err).Message(), lndNotFound):
		return fmt.Errorf("lnd cancel invoice %s: %w", paymentHash, ledger.ErrUnknownInvoice)
	}
	return fmt.Errorf("lnd cancel invoice %s: %w", paymentHash, err)
}

// lnd's texts for an invoice already paid and for one it does not know.
const (
	lndAlreadySettled = "invoice already settled"
	lndNotFound       = "unable to locate invoice"
)

// SubscribeInvoices delivers the node's settled invoices until ctx ends or
// the stream breaks; then the channel is closed and the ledger reconnects.
func (n *Node) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	stream, err := n.ln.SubscribeInvoices(ctx, &lnrpc.InvoiceSubscription{})
	if err != nil {
		return nil, fmt.Errorf("lnd subscribe invoices: %w", err)
	}
	settled := func(st ledger.InvoiceSettlement) bool { return st.Settled }
	return forward(ctx, stream.Recv, settled, func(ledger.InvoiceSettlement) bool { return false }), nil
}

// InvoicePosition is the add index of the node's newest invoice: a
// settlement's Position is its invoice's add index, and lnd replays the
// invoices added after one. A keysend's invoice is added as it is paid;
// an invoice of Hearth's paid later is the reconciler's, which reads it
// by hash.
func (n *Node) InvoicePosition(ctx context.Context) (uint64, error) {
	res, err := n.ln.ListInvoices(ctx, &lnrpc.ListInvoiceRequest{Reversed: true, NumMaxInvoices: 1})
	if err != nil {
		return 0, fmt.Errorf("lnd list invoices: %w", err)
	}
	return res.LastIndexOffset, nil
}

// SubscribeInvoicesAfter is SubscribeInvoices that first replays the
// invoices added after position (their state now: the settled ones are
// delivered). lnd reads an add index of 0 as "replay nothing", so from 0
// the invoices are listed instead, after the stream opened: none is
// missed, and one delivered twice is applied once.
func (n *Node) SubscribeInvoicesAfter(ctx context.Context, position uint64) (<-chan ledger.InvoiceSettlement, error) {
	stream, err := n.ln.SubscribeInvoices(ctx, &lnrpc.InvoiceSubscription{AddIndex: position})
	if err != nil {
		return nil, fmt.Errorf("lnd subscribe invoices: %w", err)
	}
	settled := func(st ledger.InvoiceSettlement) bool { return st.Settled }
	live := forward(ctx, stream.Recv, settled, func(ledger.InvoiceSettlement) bool { return false })
	if position > 0 {
		return live, nil
	}
	ch := make(chan ledger.InvoiceSettlement)
	go func() {
		defer close(ch)
		send := func(st ledger.InvoiceSettlement) bool {
			select {
			case ch <- st:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for offset := uint64(0); ; {
			page, err := n.ln.ListInvoices(ctx, &lnrpc.ListInvoiceRequest{IndexOffset: offset, NumMaxInvoices: 500})
			if err != nil {
				return // the ledger subscribes again
			}
			for _, inv := range page.Invoices {
				if st := settlement(inv); st.Settled && !send(st) {
					return
				}
			}
			if len(page.Invoices) == 0 || page.LastIndexOffset <= offset {
				break
			}
			offset = page.LastIndexOffset
		}
		for st := range live {
			if !send(st) {
				return
			}
		}
	}()
	return ch, nil
}

// forward delivers the settlements of the invoices recv reads that keep
// keeps, until ctx ends, recv fails (the stream broke) or one is last;
// then it closes the channel.
func forward(ctx context.Context, recv func() (*lnrpc.Invoice, error), keep, last func(ledger.InvoiceSettlement) bool) <-chan ledger.InvoiceSettlement {
	ch := make(chan ledger.InvoiceSettlement)
	go func() {
		defer close(ch)
		for {
			inv, err := recv()
			if err != nil {
				return
			}
			st := settlement(inv)
			if !keep(st) {
				continue
			}
			select {
			case ch <- st:
			case <-ctx.Done():
				return
			}
			if last(st) {
				return
			}
		}
	}()
	return ch
}

func settlement(inv *lnrpc.Invoice) ledger.InvoiceSettlement {
	st := ledger.InvoiceSettlement{
		PaymentHash: hex.EncodeToString(inv.RHash),
		AmountMsat:  inv.AmtPaidMsat,
		Settled:     inv.State == lnrpc.Invoice_SETTLED,
		Held:        inv.State == lnrpc.Invoice_ACCEPTED,
		Cancelled:   inv.State == lnrpc.Invoice_CANCELED,
		Position:    inv.AddIndex,
	}
	if st.Held {
		st.HeldUntil = heldUntil(inv)
	}
	if st.Settled {
		st.Preimage = hex.EncodeToString(inv.RPreimage)
		st.SettledAt = time.Unix(inv.SettleDate, 0)
	}
	if inv.IsKeysend {
		st.Keysend, st.CustomRecords = true, customRecords(inv.Htlcs)
	}
	return st
}

// customRecords are the payer's records that htlcs carried: types 65536
// and up, without the keysend preimage's (ledger.InvoiceSettlement). A
// payment in several parts carries them in each.
func customRecords(htlcs []*lnrpc.InvoiceHTLC) map[uint64][]byte {
	out := map[uint64][]byte{}
	for _, h := range htlcs {
		if h.State == lnrpc.InvoiceHTLCState_CANCELED {
			continue // failed back: its records arrived with no money
		}
		for typ, v := range h.CustomRecords {
			if typ >= customRecordMin && typ != ledger.KeysendPreimageRecord {
				out[typ] = v
			}
		}
	}
	return out
}

// customRecordMin is the first TLV type of a payer's own records (BOLT 4).
const customRecordMin = 65536
