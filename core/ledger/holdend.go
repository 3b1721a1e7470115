package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
)

// How an Accepted hold invoice ends (hold.go): settled by its owner with
// the preimage, cancelled by its owner, or cancelled by Hearth when it is
// left past its settle_by. Each end is one conditional change of the
// invoice's status, so of settle, cancel and the deadline exactly one wins;
// the node is told first (it must release or fail the HTLCs it holds), and
// what the node already did is no error, so a retry finishes the job.

// SettleHold settles hold invoice id of walletID ("" for any wallet) with
// preimage (hex). Settling a Settled invoice again answers it as it is.
func (s *Service) SettleHold(ctx context.Context, walletID, id, preimage string) (*Invoice, error) {
	inv, err := s.holdInvoice(ctx, walletID, id)
	if err != nil {
		return nil, err
	}
	preimage = strings.ToLower(preimage)
	raw, err := hex.DecodeString(preimage)
	if err != nil || len(raw) != 32 {
		return nil, ErrWrongPreimage.Reasonf("preimage must be 32 bytes, hex")
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != inv.PaymentHash {
		return nil, ErrWrongPreimage
	}
	switch {
	case inv.Status == StatusSettled:
		return inv.present(s.now()), nil
	case inv.Status != StatusAccepted:
		return nil, ErrHoldState.Reasonf("only an Accepted hold invoice can be settled; this one is %s", inv.present(s.now()).Status)
	case inv.Ledger == LedgerInternal:
		err = s.settleHeldInside(ctx, inv, preimage)
	default:
		if err := s.node.(HoldNode).SettleHoldInvoice(ctx, preimage); err != nil {
			return nil, fmt.Errorf("settling the hold invoice at the node: %w", err)
		}
		_, err = s.SettleInvoice(ctx, InvoiceSettlement{PaymentHash: inv.PaymentHash, AmountMsat: *inv.AmountReceivedMsat, Preimage: preimage})
	}
	if err != nil {
		return nil, err
	}
	return s.settledHold(ctx, inv)
}

// settledHold reads inv again after a settle: Settled, by this call or a
// concurrent one; anything else lost to a cancel.
func (s *Service) settledHold(ctx context.Context, inv *Invoice) (*Invoice, error) {
	now, err := s.Invoice(ctx, inv.WalletID, inv.ID)
	if err != nil {
		return nil, err
	}
	if now.Status != StatusSettled {
		return nil, ErrHoldState.Reasonf("the hold invoice was %s first", now.Status)
	}
	return now, nil
}

// settleHeldInside settles a hold invoice an internal payer's payment
// accepted: the invoice and the payment Settled with the preimage, the
// payer's reserve spent and the owner credited, in one transaction.
func (s *Service) settleHeldInside(ctx context.Context, inv *Invoice, preimage string) error {
	now := s.timestamp()
	var p Payment
	settled := false
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		settled = false
		won, err := affected(tx.NewUpdate().Model((*Invoice)(nil)).
			Set("status = ?", StatusSettled).
			Set("payment_preimage = ?", preimage).
			Set("fee_msat = 0").
			Set("payment_time = ?", now).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", inv.ID).
			Where("status = ?", StatusAccepted).
			Where("ledger = ?", LedgerInternal).
			Exec(ctx))
		if err != nil || !won {
			return err // a concurrent settle or cancel won: settledHold says which
		}
		if err := s.heldPayment(ctx, tx, inv, &p); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Model((*Payment)(nil)).
			Set("status = ?", StatusSettled).
			Set("fee_msat = 0").
			Set("payment_preimage = ?", preimage).
			Set("payment_time = ?", now).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", p.ID).
			Where("status = ?", StatusPending).
			Exec(ctx); err != nil {
			return fmt.Errorf("settling payment %s: %w", p.ID, err)
		}
		if err := s.rebudget(ctx, tx, &p, p.AmountMsat); err != nil {
			return err
		}
		if err := spendSettled(ctx, tx, &p, 0, now); err != nil {
			return fmt.Errorf("settling payment %s: %w", p.ID, err)
		}
		if err := s.credit(ctx, tx, inv.WalletID, *inv.AmountReceivedMsat, now); err != nil {
			return err
		}
		settled = true
		return nil
	})
	if err != nil || !settled {
		return err
	}
	zero := int64(0)
	inv.Status, inv.PaymentPreimage, inv.PaymentTime, inv.UpdatedAt, inv.FeeMsat = StatusSettled, &preimage, &now, &now, &zero
	p.Status, p.FeeMsat, p.PaymentPreimage, p.PaymentTime, p.UpdatedAt = StatusSettled, &zero, &preimage, &now, &now
	s.publish(ctx, event.InvoiceSettled, inv.WalletID, inv.ID, inv.present(s.now()))
	s.publish(ctx, event.PaymentSettled, p.WalletID, p.ID, p.present())
	return nil
}

// heldPayment reads into p the Pending internal payment that accepted hold
// invoice inv: there is one, written in the transaction that accepted it.
func (s *Service) heldPayment(ctx context.Context, tx bun.Tx, inv *Invoice, p *Payment) error {
	err := tx.NewSelect().Model(p).
		Where("payment_hash = ?", inv.PaymentHash).
		Where("ledger = ?", LedgerInternal).
		Where("status = ?", StatusPending).
		Scan(ctx)
	if err != nil {
		return fmt.Errorf("reading the payment that holds invoice %s: %w", inv.ID, err)
	}
	return nil
}

// CancelHold cancels hold invoice id of walletID ("" for any wallet),
// Pending or Accepted: the node fails back the HTLCs it holds, or the
// internal payer's payment fails and its reserve is released. Cancelling a
// Cancelled invoice again answers it as it is.
func (s *Service) CancelHold(ctx context.Context, walletID, id string) (*Invoice, error) {
	return s.cancelHold(ctx, walletID, id, "the payee cancelled the hold invoice")
}

// cancelHold cancels a hold invoice, failing its internal payment, if
// any, with reason.
func (s *Service) cancelHold(ctx context.Context, walletID, id, reason string) (*Invoice, error) {
	for attempt := 0; ; attempt++ {
		inv, err := s.holdInvoice(ctx, walletID, id)
		if err != nil {
			return nil, err
		}
		switch inv.Status {
		case StatusCancelled:
			return inv.present(s.now()), nil
		case StatusSettled:
			return nil, ErrHoldState.Reasonf("the hold invoice is Settled")
		}
		if err := s.node.CancelInvoice(ctx, inv.PaymentHash); err != nil && !errors.Is(err, ErrUnknownInvoice) {
			if errors.Is(err, ErrSettledAtNode) || inv.Ledger != LedgerInternal {
				return nil, fmt.Errorf("cancelling the hold invoice at the node: %w", err)
			}
			// Internally accepted: the money is the ledger's alone, and
			// a payment the node holds later finds the invoice Cancelled.
			s.log.WarnContext(ctx, "cancelling a hold invoice at the node", "invoice_id", inv.ID, "err", err)
		}
		err = s.cancelHeld(ctx, inv, reason)
		if errors.Is(err, errNotHeld) && attempt < 3 {
			continue // it changed meanwhile: read it again
		}
		if err != nil {
			return nil, err
		}
		return inv.present(s.now()), nil
	}
}

// cancelHeld cancels inv if it is still as read, in one transaction with
// the failure of the internal payment that accepted it, if one did.
func (s *Service) cancelHeld(ctx context.Context, inv *Invoice, reason string) error {
	now := s.timestamp()
	internal := inv.Status == StatusAccepted && inv.Ledger == LedgerInternal
	var p Payment
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		won, err := affected(tx.NewUpdate().Model((*Invoice)(nil)).
			Set("status = ?", StatusCancelled).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", inv.ID).
			Where("status = ?", inv.Status).
			Where("ledger = ?", inv.Ledger).
			Exec(ctx))
		if err != nil {
			return fmt.Errorf("cancelling hold invoice: %w", err)
		}
		if !won {
			return errNotHeld
		}
		if !internal {
			return nil
		}
		if err := s.heldPayment(ctx, tx, inv, &p); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Model((*Payment)(nil)).
			Set("status = ?", StatusFailed).
			Set("error = ?", reason).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", p.ID).
			Where("status = ?", StatusPending).
			Exec(ctx); err != nil {
			return fmt.Errorf("failing payment %s: %w", p.ID, err)
		}
		if err := s.rebudget(ctx, tx, &p, 0); err != nil {
			return err
		}
		return releaseReserve(ctx, tx, p.WalletID, p.ReservedMsat, now)
	})
	if err != nil {
		return err
	}
	inv.Status, inv.UpdatedAt = StatusCancelled, &now
	s.publish(ctx, event.InvoiceCancelled, inv.WalletID, inv.ID, inv.present(s.now()))
	if internal {
		p.Status, p.Error, p.UpdatedAt = StatusFailed, &reason, &now
		s.publish(ctx, event.PaymentFailed, p.WalletID, p.ID, p.present())
	}
	return nil
}

// CancelOverdueHolds cancels the Accepted hold invoices left unsettled
// past their settle_by, or within holdMarginBlocks of their HTLCs'
// expiry, and returns how many it cancelled. The node
// stream's leader runs it (run.go).
func (s *Service) CancelOverdueHolds(ctx context.Context) (int, error) {
	ids, err := s.overdueHolds(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, id := range ids {
		if _, err := s.cancelHold(ctx, "", id, "the payee did not settle the hold invoice in time"); err != nil {
			if !errors.Is(err, ErrHoldState) {
				errs = append(errs, fmt.Errorf("cancelling overdue hold invoice %s: %w", id, err))
			}
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
