package ledger

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// Watching the open hold invoices at a node whose stream of settled
// invoices does not say when one is paid or cancelled (a HoldWatcher:
// lnd). The leader of the node's streams (run.go) watches every hold
// invoice still Pending, or Accepted through the node, one stream each:
// when it starts, when this process makes one (wake), and on every sweep,
// which finds those another replica made and restarts a broken stream.

// holdWatches is the set of hold invoices being watched.
type holdWatches struct {
	mu      sync.Mutex
	running map[string]bool
	// wake is signalled when a hold invoice is made here.
	wake chan struct{}
}

func newHoldWatches() holdWatches {
	return holdWatches{running: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// made tells the leader that a hold invoice was made.
func (w *holdWatches) made() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// watchHolds starts a watch of every open hold invoice not watched yet;
// each ends with ctx or when its invoice is settled or cancelled.
func (s *Service) watchHolds(ctx context.Context, hw HoldWatcher) error {
	var open []Invoice
	if err := s.db.R.NewSelect().Model(&open).Column("payment_hash", "status", "ledger", "expires_at").
		Where("hold").Where("status IN (?)", bun.In([]string{StatusPending, StatusAccepted})).
		Scan(ctx); err != nil {
		return fmt.Errorf("listing open hold invoices: %w", err)
	}
	now := s.now()
	for _, inv := range open {
		if inv.Status == StatusPending && !now.Before(inv.ExpiresAt) || inv.Status == StatusAccepted && inv.Ledger != LedgerLightning {
			continue // expired unpaid, or held inside the instance
		}
		s.watches.mu.Lock()
		started := s.watches.running[inv.PaymentHash]
		s.watches.running[inv.PaymentHash] = true
		s.watches.mu.Unlock()
		if !started {
			go s.watchHold(ctx, hw, inv.PaymentHash)
		}
	}
	return nil
}

// watchHold applies what the node says of the hold invoice of hash until
// its stream ends.
func (s *Service) watchHold(ctx context.Context, hw HoldWatcher, hash string) {
	defer func() {
		s.watches.mu.Lock()
		delete(s.watches.running, hash)
		s.watches.mu.Unlock()
	}()
	ch, err := hw.WatchHold(ctx, hash)
	if err != nil {
		s.log.WarnContext(ctx, "watching a hold invoice at the node", "payment_hash", hash, "err", err)
		return
	}
	for st := range ch {
		if st.Cancelled {
			if err := s.cancelledAtNode(ctx, hash); err != nil {
				s.log.WarnContext(ctx, "applying the node's cancel of a hold invoice", "payment_hash", hash, "err", err)
			}
			continue
		}
		if st.Held || st.Settled {
			s.applySettlement(ctx, st)
		}
	}
}

// cancelledAtNode applies the node's word that it cancelled the hold
// invoice of hash, if the ledger still has it open through the node and
// unexpired.
func (s *Service) cancelledAtNode(ctx context.Context, hash string) error {
	inv, err := s.invoiceWhere(ctx, "payment_hash = ?", hash)
	if err != nil || inv == nil || !inv.Hold {
		return err
	}
	switch {
	case inv.Status != StatusPending && (inv.Status != StatusAccepted || inv.Ledger != LedgerLightning):
		return nil
	case inv.Status == StatusPending && !s.now().Before(inv.ExpiresAt):
		return nil // lnd cancels an invoice once it expires: it stays Expired
	}
	if err := s.cancelHeld(ctx, inv, ""); err != nil && err != errNotHeld {
		return err
	}
	return nil
}

// heldTerms are the settle_by and settle_deadline of a hold invoice whose
// payment the node holds as st says, accepted at now: its HTLCs' expiry
// less the margin, at the node's height now, or, without heights (an
// internal payer, the embedded node), the invoice's final CLTV delta.
func (s *Service) heldTerms(ctx context.Context, inv *Invoice, st InvoiceSettlement, now time.Time) (by time.Time, deadline *int64) {
	if st.HeldUntil > 0 {
		if info, err := s.node.Info(ctx); err == nil && info.BlockHeight > 0 {
			until := st.HeldUntil
			return s.settleBy(now, until-int64(info.BlockHeight)), &until
		}
	}
	return s.settleBy(now, inv.MinFinalCLTVExpiryDelta), nil
}

// overdueHolds lists the Accepted hold invoices due to be cancelled now:
// past their settle_by, or with their HTLCs within holdMarginBlocks of
// expiring at the node's height.
func (s *Service) overdueHolds(ctx context.Context) ([]string, error) {
	var accepted []Invoice
	if err := s.db.R.NewSelect().Model(&accepted).Column("id", "cancel_at", "settle_deadline").
		Where("status = ?", StatusAccepted).OrderExpr("cancel_at").
		Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing Accepted hold invoices: %w", err)
	}
	now := s.now()
	height := int64(-1) // not asked yet
	var due []string
	for _, inv := range accepted {
		if inv.SettleBy != nil && !now.Before(*inv.SettleBy) {
			due = append(due, inv.ID)
			continue
		}
		if inv.SettleDeadline == nil {
			continue
		}
		if height < 0 {
			height = 0
			if info, err := s.node.Info(ctx); err == nil {
				height = int64(info.BlockHeight)
			}
		}
		if height > 0 && height >= *inv.SettleDeadline-holdMarginBlocks {
			due = append(due, inv.ID)
		}
	}
	return due, nil
}
