package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// The bare phase's statements: on SQLite the writes of ledger.payInternal,
// Hot as there (prepared once on the connection, run with bound
// arguments); on PostgreSQL the one call of ledger.payOwn, to the function
// of the database that makes those writes.
var (
	debitSQL = store.NewHot(`UPDATE wallets SET available_msat = available_msat - ?, sent_msat = sent_msat + ?, updated_at = ?
		WHERE id = ? AND available_msat >= ?`)
	settleSQL = store.NewHot(`UPDATE invoices SET status = 'Settled', ledger = 'Internal', amount_received_msat = ?, fee_msat = 0,
		payment_time = ?, updated_at = ? WHERE id = ? AND status = 'Pending' AND expires_at > ?`)
	creditSQL = store.NewHot(`UPDATE wallets SET available_msat = available_msat + ?, received_msat = received_msat + ?, updated_at = ?
		WHERE id = ?`)
	insertSQL = store.NewHot(`INSERT INTO payments (id, wallet_id, amount_msat, fee_msat, reserved_msat, status, ledger, payment_time,
		payment_hash, payment_preimage, bolt11, request_hash, created_at)
		VALUES (?, ?, ?, 0, 0, 'Settled', 'Internal', ?, ?, ?, ?, ?, ?)`)
)

// newID is a payment id as the ledger makes them (UUIDv7).
func newID() string { return uuid.Must(uuid.NewV7()).String() }

// requestHash stands in for the hash of the payment request Hearth keeps.
var requestHash = strings.Repeat("0", 64)

// bare pays inv as client i with the ledger's writes alone, in one
// transaction on the writer connection: the statements of payInternal on
// SQLite (BEGIN IMMEDIATE), the one statement of payOwn on PostgreSQL.
func (f *fixture) bare(ctx context.Context, i int, inv *ledger.Invoice) error {
	if f.db.Dialect == store.Postgres {
		var settled ledger.Invoice
		err := f.db.QueryRow(ctx, f.db.W, ledger.PayOwnQuery, []any{&settled}, inv.Bolt11, f.payers[i], nil,
			newID(), time.Now().UTC().Truncate(time.Microsecond), nil, requestHash, nil)
		if err != nil {
			return fmt.Errorf("hearth_pay_own: %w", err)
		}
		return nil
	}
	tx, err := f.db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after commit it is a no-op
	now := time.Now().UTC().Truncate(time.Microsecond)
	if err := exactlyOne(f.db.Exec(ctx, tx, debitSQL, load.PaymentMsat, load.PaymentMsat, now, f.payers[i], load.PaymentMsat)); err != nil {
		return fmt.Errorf("debit: %w", err)
	}
	if err := exactlyOne(f.db.Exec(ctx, tx, settleSQL, load.PaymentMsat, now, now, inv.ID, now)); err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	if err := exactlyOne(f.db.Exec(ctx, tx, creditSQL, load.PaymentMsat, load.PaymentMsat, now, f.payees[i])); err != nil {
		return fmt.Errorf("credit: %w", err)
	}
	if _, err := f.db.Exec(ctx, tx, insertSQL, newID(), f.payers[i], load.PaymentMsat, now,
		inv.PaymentHash, inv.PaymentPreimage, inv.Bolt11, requestHash, now); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	return tx.Commit()
}

func exactlyOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%d rows affected, want 1", n)
	}
	return nil
}

// http pays inv as client i through POST /v1/me/payments.
func (f *fixture) http(_ context.Context, i int, inv *ledger.Invoice) error {
	return f.conns[i].Pay(f.addr, f.keys[i], inv.Bolt11)
}
