package withdraw

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// errSubmitted rolls back a claim whose invoice the link has a claim of.
var errSubmitted = errors.New("this invoice was submitted to the link already")

// Claimed is the type of the event of a claim that took a use of a link.
const Claimed = Name + ".claimed"

// ClaimedEvent is the data of a withdraw.claimed event: the link, and the
// claim as it was made (pending: its payment's events follow).
type ClaimedEvent struct {
	LinkID string `json:"link_id"`
	Title  string `json:"title"`
	Claim
}

// claim takes a use of link l for the invoice (bolt11, decoded as dec) at
// now, in one transaction: the claim's row, then the link's conditional
// update (live, not expired, a use left, its wait passed since the last
// use), so that concurrent callbacks take exactly the uses there are, and
// the withdraw.claimed event. The same invoice submitted again takes no
// use: it answers the claim it made (dup).
func (p *Plugin) claim(ctx context.Context, l *linkRow, bolt11 string, dec *ledger.DecodedInvoice, now time.Time) (*claimRow, bool, error) {
	c := &claimRow{ID: uuid.Must(uuid.NewV7()).String(), LinkID: l.ID, PaymentHash: dec.PaymentHash, Bolt11: bolt11,
		AmountMsat: dec.AmountMsat, State: claimPending, CreatedAt: now}
	err := p.host.Tx(ctx, func(ctx context.Context, tx bun.Tx, emit host.Emitter) error {
		res, err := tx.NewInsert().Model(c).On("CONFLICT (link_id, payment_hash) DO NOTHING").Exec(ctx)
		if err != nil {
			return fmt.Errorf("recording a claim: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(errSubmitted, err)
		}
		res, err = tx.NewUpdate().Model((*linkRow)(nil)).Set("used = used + 1").Set("last_claim_at = ?", now).
			Where("id = ?", l.ID).Where("revoked_at IS NULL").Where("used < uses").
			Where("expires_at IS NULL OR expires_at > ?", now).
			Where("last_claim_at IS NULL OR last_claim_at <= ?", now.Add(-time.Duration(l.WaitSeconds)*time.Second)).
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("taking a use of the link: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return refusal(ctx, tx, l.ID, now)
		}
		return emit(ctx, host.NewEvent{Type: Claimed, WalletID: l.WalletID, SubjectID: c.ID,
			Data: ClaimedEvent{LinkID: l.ID, Title: l.Title, Claim: c.api()}})
	})
	if errors.Is(err, errSubmitted) {
		prev, rerr := p.claimByHash(ctx, l.ID, dec.PaymentHash)
		if rerr != nil || prev == nil {
			return nil, false, errors.Join(err, rerr)
		}
		return prev, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return c, false, nil
}

// refusal says why the link, as tx sees it, took no use at now: always an
// error, so that tx rolls back.
func refusal(ctx context.Context, tx bun.Tx, id string, now time.Time) error {
	var l linkRow
	if err := tx.NewSelect().Model(&l).Where("id = ?", id).Scan(ctx); err != nil {
		return fmt.Errorf("reading a withdraw link: %w", err)
	}
	if err := l.usable(now); err != nil {
		return err
	}
	return errRefused
}

// usable is nil when the link may take a use at now, else why not.
func (l *linkRow) usable(now time.Time) error {
	switch {
	case l.RevokedAt != nil:
		return ErrNotFound.Reasonf("This link was revoked")
	case l.ExpiresAt != nil && !now.Before(*l.ExpiresAt):
		return errRefused.Reasonf("This link has expired")
	case l.Used >= l.Uses:
		return errRefused.Reasonf("This link has been used")
	case l.LastClaimAt != nil && now.Sub(*l.LastClaimAt) < time.Duration(l.WaitSeconds)*time.Second:
		left := time.Duration(l.WaitSeconds)*time.Second - now.Sub(*l.LastClaimAt)
		return errRefused.Reasonf("Wait %d seconds before this link's next use", int(left.Seconds()+1))
	}
	return nil
}

// errRefused is a use the link does not take now.
var errRefused = fault.New(fault.Unprocessable, "withdraw_refused", "The link takes no use now")

// pay pays claim c through its link's credential; a definite refusal
// (revoked link, no funds, budget spent, a bad invoice) fails the claim
// and gives its use back to the link. Anything else leaves it pending for
// the lead to try again: the payment's idempotency key (the claim's)
// makes a second try the first payment.
func (p *Plugin) pay(ctx context.Context, c *claimRow) {
	var l linkRow
	if err := p.db.R.NewSelect().Model(&l).Where("id = ?", c.LinkID).Scan(ctx); err != nil {
		p.log.WarnContext(ctx, "withdraw: reading a claim's link", "claim", c.ID, "err", err)
		return
	}
	act, err := p.host.ActAs(ctx, l.DelegationID)
	if err != nil {
		p.settle(ctx, c, nil, err)
		return
	}
	paid, err := act.Pay(ctx, ledger.PayRequest{Input: c.Bolt11, IdempotencyKey: "withdraw:" + c.ID})
	if err == nil && paid.Status == ledger.StatusFailed {
		err = fault.Unprocessablef("payment_failed", "the payment failed")
	}
	p.settle(ctx, c, paid, err)
}

// settle records what paying c came to: paid, failed (its use given
// back), or nothing when the error may pass.
func (p *Plugin) settle(ctx context.Context, c *claimRow, paid *ledger.Payment, payErr error) {
	if payErr != nil && !definite(payErr) {
		if ctx.Err() == nil {
			p.log.WarnContext(ctx, "withdraw: paying a claim", "claim", c.ID, "err", payErr)
		}
		return
	}
	now := p.cfg.Now().UTC()
	err := p.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		up := tx.NewUpdate().Model((*claimRow)(nil)).Set("done_at = ?", now).
			Where("id = ?", c.ID).Where("state = ?", claimPending)
		if payErr == nil {
			up = up.Set("state = ?", claimPaid).Set("payment_id = ?", paid.ID)
		} else {
			up = up.Set("state = ?", claimFailed).Set("error = ?", errText(payErr))
		}
		res, err := up.Exec(ctx)
		if err != nil {
			return fmt.Errorf("recording a claim's outcome: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 || payErr == nil {
			return nil // settled already, by another try; or paid
		}
		_, err = tx.NewUpdate().Model((*linkRow)(nil)).Set("used = used - 1").Where("id = ?", c.LinkID).Where("used > 0").Exec(ctx)
		return err
	})
	if err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "withdraw: settling a claim", "claim", c.ID, "err", err)
	}
}

// definite reports whether a payment's error is a refusal that trying
// again would not change.
func definite(err error) bool {
	var ce *host.CallError
	if errors.As(err, &ce) {
		return ce.Code != "unavailable"
	}
	if f, ok := fault.As(err); ok {
		return f.Kind != fault.Unavailable && f.Kind != fault.TooManyRequests
	}
	return false
}

// errText is an error as a claim keeps it.
func errText(err error) string {
	s := err.Error()
	if f, ok := fault.As(err); ok {
		s = f.Reason
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// payLeft pays, until ctx ends, the claims left pending by the process
// that took them (a crash between the answer and the payment).
func (p *Plugin) payLeft(ctx context.Context) {
	t := time.NewTicker(p.cfg.Poll)
	defer t.Stop()
	for {
		cs, err := p.pendingClaims(ctx, p.cfg.Now().UTC().Add(-p.cfg.Retry), 16)
		if err != nil && ctx.Err() == nil {
			p.log.WarnContext(ctx, "withdraw: reading pending claims", "err", err)
		}
		for i := range cs {
			p.pay(ctx, &cs[i])
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
