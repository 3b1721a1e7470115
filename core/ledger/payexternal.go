package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Lightning payments that leave the instance: the amount and the maximum
// fee reserved, the node asked to pay, the outcome applied (outcome.go);
// and Reconcile, which asks the node about what is still Pending, payments
// and invoices, after a crash, a restart or a lost stream.

func (s *Service) canPayExternal() bool {
	ep, ok := s.node.(ExternalPayer)
	return !ok || ep.ExternalPayments()
}

func (s *Service) maxFee(amount int64) int64 {
	return max(amount*s.cfg.FeeLimitPercent/100, s.cfg.MinFeeLimitMsat)
}

// payExternal reserves amount + max fee, asks the node to pay outside the
// transaction, and settles at the real fee or fails and releases. An
// ambiguous answer leaves the payment Pending for the reconciler.
func (s *Service) payExternal(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	if !s.canPayExternal() {
		return nil, ErrNoExternalNode
	}
	now := s.timestamp()
	maxFee := s.maxFee(t.amount)
	reserve := t.amount + maxFee
	p := &Payment{
		ID:            newID(),
		WalletID:      walletID,
		AmountMsat:    t.amount,
		Status:        StatusPending,
		Ledger:        LedgerLightning,
		CreatedAt:     now,
		ReservedMsat:  reserve,
		PaymentHash:   &t.decoded.PaymentHash,
		Bolt11:        &t.bolt11,
		RequestHash:   &reqHash,
		LnAddress:     t.lnAddress,
		SuccessAction: t.successAction,
	}
	if t.decoded.Description != "" {
		p.Description = &t.decoded.Description
	}
	if req.IdempotencyKey != "" {
		p.IdempotencyKey = &req.IdempotencyKey
	}
	p.keep(req.asked)
	if err := s.reservePayment(ctx, p, req, now, "maximum fee", s.insertPayment); err != nil {
		return nil, err
	}
	// The node call must finish even if the client goes away: its outcome
	// decides where the reserved money goes.
	payCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.PayTimeout+5*time.Second)
	defer cancel()
	res, err := s.node.Pay(payCtx, NodePayment{Bolt11: t.bolt11, AmountMsat: t.amount, MaxFeeMsat: maxFee, Timeout: s.cfg.PayTimeout})
	if err := s.applyOutcome(payCtx, p.ID, res, err); err != nil {
		return nil, err
	}
	return s.Payment(ctx, walletID, p.ID)
}

// Reconcile resolves Pending payments and invoices against the node, so a
// crash, restart or lost stream loses nothing.
func (s *Service) Reconcile(ctx context.Context) error {
	var pending []Payment
	if err := s.db.R.NewSelect().Model(&pending).
		Where("status = ?", StatusPending).Where("ledger = ?", LedgerLightning).Scan(ctx); err != nil {
		return fmt.Errorf("listing pending payments: %w", err)
	}
	var errs []error
	for _, p := range pending {
		if p.PaymentHash == nil {
			continue
		}
		res, err := s.node.LookupPayment(ctx, *p.PaymentHash)
		if err != nil {
			errs = append(errs, fmt.Errorf("looking up payment %s: %w", p.ID, err))
			continue
		}
		switch res.State {
		case PaymentSucceeded:
			err = s.SettlePayment(ctx, p.ID, res.FeeMsat, res.Preimage)
		case PaymentFailedState:
			err = s.FailPayment(ctx, p.ID, res.Reason)
		case PaymentUnknown:
			// Recorded but never handed to the node (a crash in between):
			// nothing was sent. Young ones may still be in a Pay call.
			if s.now().Sub(p.CreatedAt) > s.cfg.PayTimeout+time.Minute {
				err = s.FailPayment(ctx, p.ID, "never reached the node")
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	var invoices, held []Invoice
	if err := s.db.R.NewSelect().Model(&invoices).
		Where("status = ?", StatusPending).Where("expires_at > ?", s.timestamp().Add(-24*time.Hour)).
		Where("ledger <> ?", LedgerOnchain).Scan(ctx); err != nil {
		return errors.Join(append(errs, fmt.Errorf("listing pending invoices: %w", err))...)
	}
	// And the hold invoices the node holds, which it may have settled or
	// cancelled meanwhile (holdend.go).
	if err := s.db.R.NewSelect().Model(&held).
		Where("status = ?", StatusAccepted).Where("ledger = ?", LedgerLightning).Scan(ctx); err != nil {
		return errors.Join(append(errs, fmt.Errorf("listing held invoices: %w", err))...)
	}
	for _, inv := range append(invoices, held...) {
		st, err := s.node.LookupInvoice(ctx, inv.PaymentHash)
		if errors.Is(err, ErrUnknownInvoice) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("looking up invoice %s: %w", inv.ID, err))
			continue
		}
		switch {
		case st.Cancelled && inv.Hold:
			err = s.cancelledAtNode(ctx, inv.PaymentHash)
		case st.Settled, st.Held && inv.Status == StatusPending:
			_, err = s.SettleInvoice(ctx, *st)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
