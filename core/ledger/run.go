package ledger

import (
	"context"
	"fmt"
	"time"
)

// holdSweepEvery is how often the leader cancels the hold invoices left
// past their settle_by (holdend.go): a minute late at most, against the
// hours a hold's margin gives.
const holdSweepEvery = 30 * time.Second

// streamLock names the lock held by the one replica that consumes the
// node's streams.
const streamLock = "ledger.node-streams"

// Run follows the node for as long as ctx lasts. Among replicas sharing a
// PostgreSQL database only the holder of the stream lock does so (the
// others take over within LeaderPoll when it goes away); every replica
// serves the API, and the ledger stays correct whichever applies an event.
// Following the node means: subscribe to its settled invoices and payment
// updates, reconcile every pending invoice and payment, then apply the
// streams; when they break, wait (with backoff), and start over.
func (s *Service) Run(ctx context.Context) error {
	for {
		lock, err := s.db.TryLock(ctx, streamLock)
		if err != nil {
			s.log.WarnContext(ctx, "taking the node stream lock", "err", err)
		}
		if lock != nil {
			s.lead(ctx, lock)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.cfg.LeaderPoll):
		}
	}
}

// lead follows the node until ctx ends or the lock is lost.
func (s *Service) lead(ctx context.Context, lock interface {
	Lost() <-chan struct{}
	Release()
}) {
	defer lock.Release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-lock.Lost():
			s.log.WarnContext(ctx, "lost the node stream lock; another replica takes over")
			cancel()
		case <-ctx.Done():
		}
	}()
	backoff := time.Second
	for ctx.Err() == nil {
		if s.follow(ctx) {
			backoff = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, s.cfg.ReconnectMax)
	}
}

// follow subscribes to the node's streams, reconciles, and applies the
// streams until one breaks or ctx ends. It reports whether it got as far as
// trusting the streams. Subscribing before reconciling means nothing that
// happens in between is missed.
func (s *Service) follow(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	invoices, pos, err := s.subscribeInvoices(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "subscribing to invoices", "err", err)
		return false
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.savePosition(ctx, pos)
	}()
	var payments <-chan PaymentUpdate
	if ps, ok := s.node.(PaymentSubscriber); ok {
		if payments, err = ps.SubscribePayments(ctx); err != nil {
			s.log.WarnContext(ctx, "subscribing to payments", "err", err)
			return false
		}
	}
	if err := s.Reconcile(ctx); err != nil {
		s.log.WarnContext(ctx, "reconciling with the node; will retry", "err", err)
		return false
	}
	s.log.InfoContext(ctx, "following the node")
	hw, watching := s.node.(HoldWatcher)
	var made <-chan struct{}
	if watching {
		made = s.watches.wake
		s.sweepHolds(ctx, hw)
	}
	tick := time.NewTicker(s.cfg.ReconcileEvery)
	defer tick.Stop()
	holds := time.NewTicker(holdSweepEvery)
	defer holds.Stop()
	for {
		select {
		case <-holds.C:
			s.sweepHolds(ctx, hw)
		case <-made:
			if err := s.watchHolds(ctx, hw); err != nil {
				s.log.WarnContext(ctx, "watching hold invoices", "err", err)
			}
		case <-ctx.Done():
			return true
		case st, ok := <-invoices:
			if !ok {
				s.log.WarnContext(ctx, "the node's invoice stream ended; reconnecting")
				return true
			}
			s.applied(ctx, pos, st, s.applySettlement(ctx, st))
		case u, ok := <-payments:
			if !ok {
				s.log.WarnContext(ctx, "the node's payment stream ended; reconnecting")
				return true
			}
			if err := s.ApplyPaymentUpdate(ctx, u); err != nil {
				s.log.WarnContext(ctx, "applying payment update", "payment_hash", u.PaymentHash, "err", err)
			}
		case <-tick.C:
			s.savePosition(ctx, pos)
			if err := s.Reconcile(ctx); err != nil {
				s.log.WarnContext(ctx, "reconciling with the node", "err", err)
			}
		}
	}
}

// Consume applies the node's settlements from ch until ch closes (false)
// or ctx ends (true). A one-shot command that subscribed itself uses it.
func (s *Service) Consume(ctx context.Context, ch <-chan InvoiceSettlement) bool {
	for {
		select {
		case <-ctx.Done():
			return true
		case st, ok := <-ch:
			if !ok {
				return false
			}
			s.applySettlement(ctx, st)
		}
	}
}

func (s *Service) applySettlement(ctx context.Context, st InvoiceSettlement) error {
	applied, err := s.SettleInvoice(ctx, st)
	if err == nil && !applied && st.Done != nil {
		err = ErrInvoicePaid
	}
	if err != nil {
		s.log.WarnContext(ctx, "applying invoice settlement", "payment_hash", st.PaymentHash, "err", err)
	}
	if st.Done != nil {
		st.Done <- err
	}
	return err
}

// ApplyPaymentUpdate applies the node's final word on an outgoing payment
// to the Pending Lightning payment of that hash, if there is one. A failure
// is confirmed with the node first: a late event of an earlier attempt must
// not fail a retry that is in flight.
func (s *Service) ApplyPaymentUpdate(ctx context.Context, u PaymentUpdate) error {
	var ids []string
	if err := s.db.W.NewSelect().Model((*Payment)(nil)).Column("id").
		Where("payment_hash = ?", u.PaymentHash).
		Where("ledger = ?", LedgerLightning).
		Where("status = ?", StatusPending).
		Scan(ctx, &ids); err != nil {
		return fmt.Errorf("finding payment %s: %w", u.PaymentHash, err)
	}
	if len(ids) == 0 {
		return nil
	}
	res := u.Result
	if res.State == PaymentFailedState {
		now, err := s.node.LookupPayment(ctx, u.PaymentHash)
		if err != nil {
			return fmt.Errorf("confirming failure of %s: %w", u.PaymentHash, err)
		}
		res = *now
	}
	for _, id := range ids {
		if err := s.applyOutcome(ctx, id, &res, nil); err != nil {
			return err
		}
	}
	return nil
}

// sweepHolds watches the open hold invoices at the node, when hw is set,
// and cancels the overdue ones.
func (s *Service) sweepHolds(ctx context.Context, hw HoldWatcher) {
	if hw != nil {
		if err := s.watchHolds(ctx, hw); err != nil {
			s.log.WarnContext(ctx, "watching hold invoices", "err", err)
		}
	}
	if _, err := s.CancelOverdueHolds(ctx); err != nil {
		s.log.WarnContext(ctx, "cancelling overdue hold invoices", "err", err)
	}
}
