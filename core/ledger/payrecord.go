package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// The payments table: a payment recorded (insertPayment; with its budget
// charge and its reserve, for one that leaves the instance,
// reservePayment), and read back, one (Payment) or a page (Payments).

// insertPaymentSQL records a payment: every column of Payment, in the
// order insertPayment binds them. Hot: every payment on SQLite runs it in
// the one writer, where parsing it again each time was 6 % of the CPU.
var insertPaymentSQL = store.NewHot(`INSERT INTO payments (id, wallet_id, amount_msat, fee_msat,
	reserved_msat, status, ledger, error, description, payment_time, payment_hash, payment_preimage,
	bolt11, idempotency_key, request_hash, created_at, updated_at, ln_address, success_action, btc_address,
	api_key_id, budget_period, budget_msat, event_id)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
	CASE WHEN ? = 'Pending' THEN NULL ELSE ` + store.EventToken + ` END)`)

// insertPayment records p inside tx; a unique index's refusal is the
// ledger's error for it.
func (s *Service) insertPayment(ctx context.Context, tx bun.Tx, p *Payment) error {
	_, err := s.db.Exec(ctx, tx, insertPaymentSQL, p.ID, p.WalletID, p.AmountMsat, p.FeeMsat, p.ReservedMsat,
		p.Status, p.Ledger, p.Error, p.Description, p.PaymentTime, p.PaymentHash, p.PaymentPreimage,
		p.Bolt11, p.IdempotencyKey, p.RequestHash, p.CreatedAt, p.UpdatedAt, p.LnAddress, p.SuccessAction, p.BtcAddress,
		p.APIKeyID, p.BudgetPeriod, p.BudgetMsat, p.Status)
	if err != nil {
		if store.IsUniqueViolation(err) {
			return uniqueRefusal(p.IdempotencyKey != nil)
		}
		return fmt.Errorf("recording payment: %w", err)
	}
	if p.FiatAmount != nil {
		// Rare, so the hot insert above binds no fiat columns.
		if _, err := tx.NewUpdate().Model(p).Column("fiat_amount", "fiat_currency", "fiat_rate", "fiat_at", "fiat_fixed").
			WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("recording the payment's amount in a currency: %w", err)
		}
	}
	return nil
}

// uniqueRefusal is the error for a payment that a unique index refused.
// PostgreSQL has aborted the transaction, so which index was hit is found
// out after the rollback (see Pay).
func uniqueRefusal(idempotent bool) error {
	if idempotent {
		return errIdempotentRace
	}
	return ErrPaymentInFlight
}

// reservePayment records p, a Pending payment that leaves the instance
// (Lightning or on-chain), in one transaction of conditional updates: it
// charges req's budget p.ReservedMsat, the most p may cost (budget.go),
// moves that much of p's wallet from available to reserved, only if it
// is there (balance.go), and records p with insert. Any refusal undoes
// all of it: ErrBudgetExceeded; ErrInsufficientFunds, whose reason names
// what the reserve holds beyond the amount (covers: "maximum fee",
// "network fee"; "" for nothing beyond it, a hold invoice's payer); or
// insert's error. The reserve is then spent or released by SettlePayment
// or FailPayment (outcome.go), or by a hold invoice's end (holdend.go).
func (s *Service) reservePayment(ctx context.Context, p *Payment, req PayRequest, now time.Time, covers string,
	insert func(context.Context, bun.Tx, *Payment) error) error {
	return s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.charge(ctx, tx, p, req, p.ReservedMsat, now); err != nil {
			return err
		}
		ok, err := reserveFunds(ctx, tx, p.WalletID, p.ReservedMsat, now)
		if err != nil {
			return fmt.Errorf("reserving funds: %w", err)
		}
		switch {
		case !ok && covers == "":
			return ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %d msat", p.ReservedMsat)
		case !ok:
			return ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %d msat (amount + %s)", p.ReservedMsat, covers)
		}
		return insert(ctx, tx, p)
	})
}

// record reads the invoice or payment id (of walletID, unless "") into
// model, or returns notFound.
func (s *Service) record(ctx context.Context, model any, walletID, id string, notFound error) error {
	q := s.db.R.NewSelect().Model(model).Where("id = ?", id)
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	err := q.Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return notFound
	case err != nil:
		return fmt.Errorf("reading %s: %w", q.GetTableName(), err)
	}
	return nil
}

// Payment returns payment id of walletID ("" for any wallet).
func (s *Service) Payment(ctx context.Context, walletID, id string) (*Payment, error) {
	p := new(Payment)
	if err := s.record(ctx, p, walletID, id, ErrPaymentNotFound); err != nil {
		return nil, err
	}
	return p.present(), nil
}

// Payments lists payments.
func (s *Service) Payments(ctx context.Context, f Filter) ([]Payment, error) {
	f, err := s.keyWallet(ctx, f)
	if err != nil {
		return nil, err
	}
	out := []Payment{}
	q, err := f.payments(s.db.R.NewSelect().Model(&out))
	if err != nil {
		return nil, err
	}
	if err := f.Page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing payments: %w", err)
	}
	for i := range out {
		out[i].present()
	}
	return out, nil
}

// keyWallet narrows f, a listing across wallets filtered by an API key
// that is not the admin's, to that key's user's wallet: such a key pays
// from its user's one wallet alone (the caller's, or a delegation's, whose
// user is its wallet's), so the list reads that wallet's index, where
// SQLite, which has no index by key, would read every payment to find a
// rare key's. The admin's keys pay from any wallet: no narrowing.
func (s *Service) keyWallet(ctx context.Context, f Filter) (Filter, error) {
	if f.APIKeyID == "" || f.WalletID != "" {
		return f, nil
	}
	var ids []string
	err := s.db.R.NewRaw(`SELECT w.id FROM api_keys k JOIN wallets w ON w.user_id = k.user_id
		WHERE k.id = ? AND NOT k.is_admin`, f.APIKeyID).Scan(ctx, &ids)
	if err != nil {
		return f, fmt.Errorf("reading the wallet of API key %s: %w", f.APIKeyID, err)
	}
	if len(ids) == 1 {
		f.WalletID = ids[0]
	}
	return f, nil
}

// payments narrows a listing of payments to f, but for its page.
func (f Filter) payments(q *bun.SelectQuery) (*bun.SelectQuery, error) {
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	switch f.Status {
	case "", StatusPending, StatusSettled, StatusFailed:
		if f.Status != "" {
			q = q.Where("status = ?", f.Status)
		}
	default:
		return nil, fault.Invalidf("status must be Pending, Settled or Failed")
	}
	if f.Ledger != "" {
		q = q.Where("ledger = ?", f.Ledger)
	}
	if f.APIKeyID != "" {
		q = q.Where("api_key_id = ?", f.APIKeyID)
	}
	return f.narrow(q), nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
