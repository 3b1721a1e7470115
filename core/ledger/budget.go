package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/store"
)

// Spending budgets (core/budget): a payment made with a credential that
// has one counts against it, amount and fees together. What it may cost
// (the amount and the maximum fee while Pending) is charged first in the
// payment's transaction by one conditional update of the key's row, which
// both checks and debits, so that payments racing on one budget never
// overspend it: the update waits for the row, then decides on what the
// winner left. A charge that would pass the budget refuses the payment
// before any money moves. The payment keeps the period it was charged in
// and what it has charged now (budget_msat); settling it gives back what
// the reserve held beyond the amount and real fee, failing it gives back
// everything, and a late success charges again, without a check (the
// money has moved), all in that period only: a period that is over has
// nothing to give back. The key's row is the last lock a payment takes
// before the wallets' rows (after PostgreSQL's wallet locks in
// payInternal), and settling and failing take it before the wallet too.

// Budget is the spending budget a payment counts against: an API key's
// (auth.Principal.Budgeted).
type Budget struct {
	// KeyID is the key whose budget is charged, kept on the payment as
	// its api_key_id.
	KeyID string
	// Renewal is how the budget renews: it names the payment's period.
	Renewal budget.Renewal
}

// chargeBudget adds a payment's charge to a key's budget in the current
// period (the used amount starting again from nothing if the period kept is
// an earlier one), only if it fits and the budget still renews as the
// payment's credential said (a budget changed since, auth.KeyChange,
// refuses the payment rather than count it in a period of another
// renewal): the period, the charge, the period, the key id, the renewal,
// the period, the charge.
var chargeBudget = store.NewHot(`UPDATE api_keys
	SET budget_used_msat = (CASE WHEN budget_period = ? THEN budget_used_msat ELSE 0 END) + ?, budget_period = ?
	WHERE id = ? AND budget_max_msat IS NOT NULL AND budget_renewal = ?
	AND (CASE WHEN budget_period = ? THEN budget_used_msat ELSE 0 END) + ? <= budget_max_msat`)

// refundBudget gives back part of a charge, never below nothing, in the
// period it was charged in only: the amount twice, the key id, the period.
var refundBudget = store.NewHot(`UPDATE api_keys
	SET budget_used_msat = CASE WHEN budget_used_msat > ? THEN budget_used_msat - ? ELSE 0 END
	WHERE id = ? AND budget_period = ?`)

// addBudget charges more, unchecked, in the period of the first charge
// only: the amount, the key id, the period.
var addBudget = store.NewHot(`UPDATE api_keys SET budget_used_msat = budget_used_msat + ? WHERE id = ? AND budget_period = ?`)

// setBudgetMsat records what a payment has charged now: the amount, the
// payment id.
var setBudgetMsat = store.NewHot(`UPDATE payments SET budget_msat = ? WHERE id = ?`)

// charge counts amount, the most p may cost, against req's budget inside
// tx, and records on p the key that makes it and what it charged:
// ErrBudgetExceeded, having changed nothing, when the budget has not that
// much left in the period of now. Without a budget it only records the key.
func (s *Service) charge(ctx context.Context, tx bun.Tx, p *Payment, req PayRequest, amount int64, now time.Time) error {
	if req.Budget == nil {
		p.APIKeyID = nullable(req.KeyID)
		return nil
	}
	b := req.Budget
	if amount > budget.MaxMsat { // more than any budget, and used + amount must stay a BIGINT
		return budgetExceeded(amount)
	}
	period := budget.Period(b.Renewal, now)
	ok, err := affected(s.db.Exec(ctx, tx, chargeBudget, period, amount, period, b.KeyID, string(b.Renewal), period, amount))
	if err != nil {
		return fmt.Errorf("charging the budget of key %s: %w", b.KeyID, err)
	}
	if !ok {
		return budgetExceeded(amount)
	}
	p.APIKeyID, p.BudgetPeriod, p.BudgetMsat = &b.KeyID, &period, amount
	return nil
}

// budgetExceeded is the refusal of a payment whose charge is amount.
func budgetExceeded(amount int64) error {
	return ErrBudgetExceeded.Reasonf("Payment would exceed the budget of this credential: it may cost %d msat", amount)
}

// rebudget makes what p has charged to its key's budget charged, inside
// tx, after p's change of status has won: it gives back the difference or
// charges it, without a check, in the period of p's first charge (nothing
// when that period is over). Nothing for a payment without a budget.
func (s *Service) rebudget(ctx context.Context, tx bun.Tx, p *Payment, charged int64) error {
	if p.BudgetPeriod == nil || p.APIKeyID == nil || charged == p.BudgetMsat {
		return nil
	}
	var err error
	if diff := charged - p.BudgetMsat; diff < 0 {
		_, err = s.db.Exec(ctx, tx, refundBudget, -diff, -diff, *p.APIKeyID, *p.BudgetPeriod)
	} else {
		_, err = s.db.Exec(ctx, tx, addBudget, diff, *p.APIKeyID, *p.BudgetPeriod)
	}
	if err != nil {
		return fmt.Errorf("adjusting the budget of key %s: %w", *p.APIKeyID, err)
	}
	if _, err := s.db.Exec(ctx, tx, setBudgetMsat, charged, p.ID); err != nil {
		return fmt.Errorf("recording the budget charge of payment %s: %w", p.ID, err)
	}
	p.BudgetMsat = charged
	return nil
}
