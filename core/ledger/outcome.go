package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
)

// The outcome of a payment that left the instance: settled at the real
// fee or failed with its reserve released, each a single-winner change of
// status with its balance and budget changes in one transaction.

// applyOutcome moves a payment on according to the node's answer.
func (s *Service) applyOutcome(ctx context.Context, id string, res *NodePaymentResult, err error) error {
	var failure *PaymentFailure
	switch {
	case errors.As(err, &failure):
		return s.FailPayment(ctx, id, failure.Reason)
	case err != nil:
		s.log.WarnContext(ctx, "payment outcome unknown; left pending for reconciliation", "payment_id", id, "err", err)
		return nil
	case res.State == PaymentSucceeded:
		return s.SettlePayment(ctx, id, res.FeeMsat, res.Preimage)
	case res.State == PaymentFailedState:
		return s.FailPayment(ctx, id, res.Reason)
	default:
		return nil // in flight: the reconciler resolves it
	}
}

// SettlePayment records a node's success: the reserve is released, the
// amount and real fee are spent. A payment already Settled is left alone; a
// Failed one (a late success) is settled and debited.
func (s *Service) SettlePayment(ctx context.Context, id string, feeMsat int64, preimage string) error {
	var p Payment
	var settled bool
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		settled = false
		if err := tx.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
			return fmt.Errorf("reading payment %s: %w", id, err)
		}
		if p.Status == StatusSettled {
			return nil
		}
		now := s.timestamp()
		won, err := affected(tx.NewUpdate().Model((*Payment)(nil)).
			Set("status = ?", StatusSettled).
			Set("fee_msat = ?", feeMsat).
			Set("payment_preimage = ?", nullable(preimage)).
			Set("payment_time = ?", now).
			Set("error = NULL").
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", id).
			Where("status = ?", p.Status).
			Exec(ctx))
		if err != nil || !won {
			return err
		}
		if err := s.rebudget(ctx, tx, &p, p.AmountMsat+feeMsat); err != nil {
			return err
		}
		if err := spendSettled(ctx, tx, &p, feeMsat, now); err != nil {
			return fmt.Errorf("settling payment %s: %w", id, err)
		}
		p.Status, p.FeeMsat, p.PaymentTime = StatusSettled, &feeMsat, &now
		p.PaymentPreimage = nullable(preimage)
		settled = true
		return nil
	})
	if err == nil && settled {
		s.publish(ctx, event.PaymentSettled, p.WalletID, p.ID, p.present())
		s.runFinisher(ctx, p.ID, p.PaymentPreimage)
	}
	return err
}

// FailPayment records a definite failure of a Pending payment and returns
// its reserve to the wallet; anything else is left alone.
func (s *Service) FailPayment(ctx context.Context, id, reason string) error {
	var p Payment
	var failed bool
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		failed = false
		if err := tx.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
			return fmt.Errorf("reading payment %s: %w", id, err)
		}
		now := s.timestamp()
		won, err := affected(tx.NewUpdate().Model((*Payment)(nil)).
			Set("status = ?", StatusFailed).
			Set("error = ?", reason).
			Set("updated_at = ?", now).
			Set("event_id = "+s.db.EventID()).
			Where("id = ?", id).
			Where("status = ?", StatusPending).
			Exec(ctx))
		if err != nil || !won {
			return err
		}
		if err := s.rebudget(ctx, tx, &p, 0); err != nil {
			return err
		}
		if err := releaseReserve(ctx, tx, p.WalletID, p.ReservedMsat, now); err != nil {
			return fmt.Errorf("releasing reserve of %s: %w", id, err)
		}
		p.Status, p.Error = StatusFailed, &reason
		failed = true
		return nil
	})
	if err == nil && failed {
		s.publish(ctx, event.PaymentFailed, p.WalletID, p.ID, p.present())
		s.finishers.Delete(p.ID)
	}
	return err
}
