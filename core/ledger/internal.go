package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
)

// errNotOwn says that payOwn found no Pending invoice of another wallet
// with that text: Pay then decodes the input and pays or refuses it.
var errNotOwn = errors.New("not a payable invoice of this instance")

// PayOwnQuery pays an invoice of the instance by its text (parameters:
// bolt11, payer wallet, requested amount or NULL, payment id, time,
// idempotency key or NULL, request hash, API key id or NULL) and answers
// the settled invoice.
// PostgreSQL only: a batch of one of hearth_pay_own_batch, which the
// ledger calls itself (batch.go); cmd/loadbench's bare phase calls this,
// one payment a transaction.
var PayOwnQuery = store.NewHot("SELECT * FROM hearth_pay_own(?, ?, ?, ?, ?, ?, ?, ?)")

// payOwn pays, inside the instance, the Pending invoice of another wallet
// whose text is bolt11: the common case, on PostgreSQL (see Pay), done by
// the database function hearth_pay_own_batch (migrations/sql/pay_own.sql)
// with the payments waiting beside it (batch.go). For each payment the
// function settles the invoice first (single winner, its record returned),
// so that it is never read beforehand, then debits the payer
// (conditionally), credits the payee and records the payment. Any refusal
// undoes that whole payment, and it alone.
func (s *Service) payOwn(ctx context.Context, walletID, bolt11 string, req PayRequest, reqHash string) (*Payment, error) {
	defer s.paying.since(time.Now())
	item := ownItem{Bolt11: bolt11, Payer: walletID, Amount: req.AmountMsat, ID: newID(), Now: s.timestamp(), Hash: reqHash}
	if req.IdempotencyKey != "" {
		item.Key = &req.IdempotencyKey
	}
	if req.KeyID != "" {
		item.APIKey = &req.KeyID
	}
	var inv *Invoice
	var err error
	// A payment that PostgreSQL chose to break a deadlock was undone
	// alone: it runs again in a later batch, like store.Statement's retries.
	for attempt := 1; ; attempt++ {
		inv, err = s.own.pay(ctx, item)
		if attempt == 10 || !store.IsRetryable(err) {
			break
		}
	}
	if err != nil {
		return nil, ownRefusal(err, req, item.Key != nil)
	}
	p := internalPayment(item.ID, walletID, inv, bolt11, *inv.AmountMsat, item.Now, req, reqHash)
	p.APIKeyID = nullable(req.KeyID)
	s.afterInternal(ctx, inv, p)
	return p, nil
}

// ownRefusal is the ledger's error for what hearth_pay_own_batch refused.
func ownRefusal(err error, req PayRequest, idempotent bool) error {
	if errors.Is(err, errNotOwn) {
		return errNotOwn
	}
	switch code, amount := store.Raised(err); code {
	case "HR001":
		return ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %s msat", amount)
	case "HR002":
		if req.AmountMsat != nil { // it is: only a requested amount can differ
			return ErrAmountMismatch.Reasonf("amount_msat %d differs from the invoice amount %s", *req.AmountMsat, amount)
		}
		return ErrAmountMismatch
	case untranslatableCharacter, characterNotInRepertoire:
		// A text PostgreSQL cannot hold (NUL, say) is no invoice of the
		// instance nor any other, as SQLite finds when it decodes it.
		return ErrUnsupportedInput
	}
	if store.IsUniqueViolation(err) {
		return uniqueRefusal(idempotent)
	}
	return fmt.Errorf("paying an invoice of the instance: %w", err)
}

// PostgreSQL's SQLSTATEs for a text it cannot hold: a NUL (jsonb's
// \u0000) and invalid UTF-8 (or a NUL in a text argument).
const (
	untranslatableCharacter  = "22P05"
	characterNotInRepertoire = "22021"
)

// payInternal settles an invoice of this instance that resolve found:
// debit the payer, settle the invoice (single winner), credit the payee,
// record the payment, in one transaction. On PostgreSQL it first takes
// the wallets' locks that the batches take (lockWallets), so that it
// cannot deadlock with a batch that took them, and it runs while no batch
// of this ledger that took none runs (ownBatcher.excl, alone.go); SQLite
// has one writer and no such waits.
func (s *Service) payInternal(ctx context.Context, walletID string, t *target, req PayRequest, reqHash string) (*Payment, error) {
	defer s.paying.since(time.Now())
	now := s.timestamp()
	inv := t.internal
	p := internalPayment(newID(), walletID, inv, t.bolt11, t.amount, now, req, reqHash)
	p.LnAddress, p.SuccessAction, p.BtcAddress = t.lnAddress, t.successAction, t.btcAddress
	if s.own != nil {
		// A batch that took no up-front locks runs meanwhile in no
		// other order than its items': wait for it here (alone.go).
		s.own.excl.Lock()
		defer s.own.excl.Unlock()
	}
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if s.db.Dialect == store.Postgres {
			if _, err := s.db.Exec(ctx, tx, lockWallets, walletID, inv.WalletID); err != nil {
				return fmt.Errorf("locking wallets: %w", err)
			}
		}
		if err := s.charge(ctx, tx, p, req, t.amount, now); err != nil {
			return err
		}
		if err := s.debit(ctx, tx, walletID, t.amount, now); err != nil {
			return err
		}
		won, err := affected(s.db.Exec(ctx, tx, settleInternal,
			StatusSettled, LedgerInternal, t.amount, now, now, inv.ID, StatusPending, now))
		if err != nil {
			return fmt.Errorf("settling invoice: %w", err)
		}
		if !won {
			return ErrInvoiceRace
		}
		if err := s.credit(ctx, tx, inv.WalletID, t.amount, now); err != nil {
			return err
		}
		return s.insertPayment(ctx, tx, p)
	})
	if err != nil {
		return nil, err
	}
	s.recent.forget(inv.Bolt11)
	zero := int64(0)
	inv.Status, inv.Ledger, inv.AmountReceivedMsat, inv.PaymentTime, inv.UpdatedAt, inv.FeeMsat = StatusSettled, LedgerInternal, &t.amount, &now, &now, &zero
	s.afterInternal(ctx, inv, p)
	return p, nil
}

// internalPayment is the record, id, of a settled internal payment of inv.
func internalPayment(id, walletID string, inv *Invoice, bolt11 string, amount int64, now time.Time, req PayRequest, reqHash string) *Payment {
	zero := int64(0)
	p := &Payment{
		ID:              id,
		WalletID:        walletID,
		AmountMsat:      amount,
		FeeMsat:         &zero,
		Status:          StatusSettled,
		Ledger:          LedgerInternal,
		Description:     inv.Description,
		PaymentTime:     &now,
		CreatedAt:       now,
		PaymentHash:     &inv.PaymentHash,
		PaymentPreimage: inv.PaymentPreimage,
		Bolt11:          &bolt11,
		RequestHash:     &reqHash,
	}
	if req.IdempotencyKey != "" {
		p.IdempotencyKey = &req.IdempotencyKey
	}
	p.keep(req.asked)
	return p
}

// lockWallets takes, on PostgreSQL, the transaction-level locks of two
// wallets (its arguments) that hearth_pay_own_batch takes for every wallet
// of a batch, in the same order
// (migrations/20261123000011_pay_own_batch_ordered.go).
var lockWallets = store.NewHot(`SELECT pg_advisory_xact_lock(1213355080, k.h)
	FROM (SELECT DISTINCT hashtext(w) AS h FROM unnest(ARRAY[?, ?]::TEXT[]) AS w ORDER BY h) AS k`)

// settleInternal settles a Pending, unexpired invoice paid inside the
// instance: status, ledger, amount_received_msat, payment_time,
// updated_at, then the invoice id, StatusPending and the time now.
var settleInternal = store.NewHot(`UPDATE invoices SET status = ?, ledger = ?, amount_received_msat = ?,
	fee_msat = 0, payment_time = ?, updated_at = ?, event_id = ` + store.EventToken + ` WHERE id = ? AND status = ? AND expires_at > ?`)

// debitWallet takes amount from a wallet that has it: amount twice, the
// time, the wallet id, amount.
var debitWallet = store.NewHot(`UPDATE wallets SET available_msat = available_msat - ?,
	sent_msat = sent_msat + ?, updated_at = ? WHERE id = ? AND available_msat >= ?`)

// debit takes a payment's amount from the payer, if the funds are there.
func (s *Service) debit(ctx context.Context, tx bun.Tx, walletID string, amount int64, now time.Time) error {
	ok, err := affected(s.db.Exec(ctx, tx, debitWallet, amount, amount, now, walletID, amount))
	if err != nil {
		return fmt.Errorf("debiting wallet: %w", err)
	}
	if !ok {
		return ErrInsufficientFunds.Reasonf("Insufficient funds. Required: %d msat", amount)
	}
	return nil
}

// afterInternal tells listeners, after the commit. A real node still holds
// the invoice open: core/withdraw cancels it there, off the payer's path,
// from the invoice.settled event that the commit wrote.
func (s *Service) afterInternal(ctx context.Context, inv *Invoice, p *Payment) {
	s.publish(ctx, event.InvoiceSettled, inv.WalletID, inv.ID, inv.present(s.now()))
	s.publish(ctx, event.PaymentSettled, p.WalletID, p.ID, p.present())
}
