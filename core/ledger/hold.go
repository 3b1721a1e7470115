package ledger

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
)

// Hold invoices: an invoice for a payment hash whose preimage its owner
// keeps. Paid, it turns Accepted — the node holds the HTLCs, or an internal
// payer's amount is reserved (its payment Pending) — until the owner
// settles it with the preimage (holdend.go), cancels it, or leaves it past
// its settle_by, when Hearth cancels it. This file makes and accepts them.

// Hold invoices' final CLTV delta: the default, and its bounds. The lower
// bound leaves the owner time beyond holdMarginBlocks.
const (
	DefaultHoldCLTVDelta = 144
	MinHoldCLTVDelta     = 36
	MaxHoldCLTVDelta     = 2016
)

// holdMarginBlocks is how many blocks before its HTLCs expire Hearth
// cancels a hold invoice left unsettled: more than lnd's own margin, so
// that Hearth, not the node, says so, and never a force-close.
const holdMarginBlocks = 18

// blockInterval is the time a block takes on average, for turning a
// number of blocks into a time to settle by.
const blockInterval = 10 * time.Minute

// NewHoldInvoice asks for a hold invoice.
type NewHoldInvoice struct {
	NewInvoice
	// PaymentHash is the SHA-256 of the preimage the owner keeps, hex.
	PaymentHash string
	// MinFinalCLTVExpiryDelta, when set, is the invoice's final CLTV
	// delta; DefaultHoldCLTVDelta otherwise.
	MinFinalCLTVExpiryDelta *int64
}

// holdTerms is what makes an invoice a hold invoice: the node that holds
// it, the payment hash and the final CLTV delta.
type holdTerms struct {
	node  HoldNode
	hash  string
	delta uint64
}

// create has the node sign a hold invoice for req.
func (h *holdTerms) create(ctx context.Context, req NodeInvoiceRequest) (*NodeInvoice, error) {
	return h.node.CreateHoldInvoice(ctx, NodeHoldRequest{NodeInvoiceRequest: req, PaymentHash: h.hash, MinFinalCLTVExpiryDelta: h.delta})
}

// CreateHoldInvoice issues a hold invoice into walletID.
func (s *Service) CreateHoldInvoice(ctx context.Context, walletID string, req NewHoldInvoice) (*Invoice, error) {
	hn, ok := s.node.(HoldNode)
	if !ok {
		return nil, ErrNoHoldInvoices
	}
	hash := strings.ToLower(req.PaymentHash)
	if b, err := hex.DecodeString(hash); err != nil || len(b) != 32 {
		return nil, ErrInvalidInvoice.Reasonf("payment_hash must be 32 bytes, hex")
	}
	delta := int64(DefaultHoldCLTVDelta)
	if req.MinFinalCLTVExpiryDelta != nil {
		delta = *req.MinFinalCLTVExpiryDelta
		if delta < MinHoldCLTVDelta || delta > MaxHoldCLTVDelta {
			return nil, ErrInvalidInvoice.Reasonf("min_final_cltv_expiry_delta must be between %d and %d", MinHoldCLTVDelta, MaxHoldCLTVDelta)
		}
	}
	n, err := s.db.R.NewSelect().Model((*Invoice)(nil)).Where("payment_hash = ?", hash).Count(ctx)
	if err != nil {
		return nil, fmt.Errorf("looking up payment hash: %w", err)
	}
	if n > 0 {
		return nil, ErrHashInUse
	}
	inv, err := s.issue(ctx, walletID, req.NewInvoice, &holdTerms{node: hn, hash: hash, delta: uint64(delta)})
	if err == nil {
		s.watches.made()
	}
	return inv, err
}

// settleBy is when Hearth cancels a hold invoice accepted now whose HTLCs
// give it blocks more blocks: holdMarginBlocks before they expire.
func (s *Service) settleBy(now time.Time, blocks int64) time.Time {
	return now.Add(time.Duration(max(blocks-holdMarginBlocks, 0)) * blockInterval)
}

// acceptHeld applies the node's word that the HTLCs of hold invoice inv
// arrived and are held: Pending turns Accepted, once, and invoice.accepted
// is written with it. applied is false for a replay.
func (s *Service) acceptHeld(ctx context.Context, inv *Invoice, st InvoiceSettlement) (applied bool, err error) {
	now := s.timestamp()
	amount := st.AmountMsat
	if amount <= 0 && inv.AmountMsat != nil {
		amount = *inv.AmountMsat
	}
	by, deadline := s.heldTerms(ctx, inv, st, now)
	err = s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		applied, err = affected(tx.NewUpdate().Model((*Invoice)(nil)).
			Set("status = ?", StatusAccepted).
			Set("amount_received_msat = ?", amount).
			Set("cancel_at = ?", by).
			Set("settle_deadline = ?", deadline).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", inv.ID).
			Where("status = ?", StatusPending).
			Where("hold").
			Exec(ctx))
		return err
	})
	if err != nil || !applied {
		return false, err
	}
	inv.Status, inv.AmountReceivedMsat, inv.SettleBy, inv.SettleDeadline, inv.UpdatedAt = StatusAccepted, &amount, &by, deadline, &now
	s.publish(ctx, event.InvoiceAccepted, inv.WalletID, inv.ID, inv.present(s.now()))
	return true, nil
}

// payHeld pays a hold invoice of the instance from walletID: the amount is
// reserved and the payment recorded Pending, and the invoice turns
// Accepted (single winner), in one transaction. The owner's settle moves
// the money; a cancel, or the deadline, releases it (holdend.go).
func (s *Service) payHeld(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	defer s.paying.since(time.Now())
	now := s.timestamp()
	inv := t.internal
	p := internalPayment(newID(), walletID, inv, t.bolt11, t.amount, now, req, reqHash)
	p.LnAddress, p.SuccessAction, p.BtcAddress = t.lnAddress, t.successAction, t.btcAddress
	p.Status, p.FeeMsat, p.PaymentTime, p.PaymentPreimage, p.ReservedMsat = StatusPending, nil, nil, nil, t.amount
	by := s.settleBy(now, inv.MinFinalCLTVExpiryDelta)
	accept := func(ctx context.Context, tx bun.Tx, p *Payment) error {
		won, err := affected(tx.NewUpdate().Model((*Invoice)(nil)).
			Set("status = ?", StatusAccepted).
			Set("ledger = ?", LedgerInternal).
			Set("amount_received_msat = ?", t.amount).
			Set("cancel_at = ?", by).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", inv.ID).
			Where("status = ?", StatusPending).
			Where("expires_at > ?", now).
			Where("hold").
			Exec(ctx))
		if err != nil {
			return fmt.Errorf("accepting hold invoice: %w", err)
		}
		if !won {
			return ErrInvoiceRace
		}
		return s.insertPayment(ctx, tx, p)
	}
	if err := s.reservePayment(ctx, p, req, now, "", accept); err != nil {
		return nil, err
	}
	s.recent.forget(inv.Bolt11)
	inv.Status, inv.Ledger, inv.AmountReceivedMsat, inv.SettleBy, inv.UpdatedAt = StatusAccepted, LedgerInternal, &t.amount, &by, &now
	s.publish(ctx, event.InvoiceAccepted, inv.WalletID, inv.ID, inv.present(s.now()))
	return p.present(), nil
}

// holdInvoice reads hold invoice id of walletID ("" for any wallet).
func (s *Service) holdInvoice(ctx context.Context, walletID, id string) (*Invoice, error) {
	inv := new(Invoice)
	if err := s.record(ctx, inv, walletID, id, ErrInvoiceNotFound); err != nil {
		return nil, err
	}
	if !inv.Hold {
		return nil, ErrNotHold
	}
	return inv, nil
}

// errNotHeld says a hold invoice was not in the status a change needs.
var errNotHeld = errors.New("hold invoice not in that status")
