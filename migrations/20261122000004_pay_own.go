package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// On PostgreSQL, paying an invoice of another wallet of the instance is one
// call to hearth_pay_own: the ledger's conditional writes of an internal
// payment (ledger.payOwn), run inside the server in one statement, hence one
// transaction and one round trip instead of six. The rules are those of
// ledger.payInternal, the path SQLite takes:
//
//   - the invoice goes Pending→Settled first (single winner: a concurrent
//     payer waits for the row and then finds it no longer Pending), and
//     only if it is unexpired, of another wallet and for a fixed amount;
//     no row answered means "not a payable invoice of this instance by this
//     text", and nothing was written;
//   - a requested amount that differs raises HR002, a payer without the
//     funds HR001, each with the invoice amount as the message, and the
//     raise undoes the whole statement, the settled invoice included;
//   - then the payee is credited and the Settled Internal payment recorded
//     (a unique violation there undoes everything too).
//
// SQLite has no stored procedures and needs none: its writes are local.
const payOwnUp = `
CREATE FUNCTION hearth_pay_own(
    p_bolt11 TEXT, p_payer TEXT, p_amount BIGINT, p_payment_id TEXT,
    p_now TIMESTAMPTZ, p_idempotency_key TEXT, p_request_hash TEXT)
RETURNS SETOF invoices LANGUAGE plpgsql AS $$
DECLARE
    inv invoices;
BEGIN
    UPDATE invoices
       SET status = 'Settled', ledger = 'Internal', amount_received_msat = amount_msat,
           fee_msat = 0, payment_time = p_now, updated_at = p_now
     WHERE bolt11 = p_bolt11 AND status = 'Pending' AND expires_at > p_now
       AND wallet_id <> p_payer AND amount_msat > 0
    RETURNING * INTO inv;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_amount IS NOT NULL AND p_amount <> inv.amount_msat THEN
        RAISE EXCEPTION USING ERRCODE = 'HR002', MESSAGE = inv.amount_msat::TEXT;
    END IF;
    UPDATE wallets
       SET available_msat = available_msat - inv.amount_msat,
           sent_msat = sent_msat + inv.amount_msat, updated_at = p_now
     WHERE id = p_payer AND available_msat >= inv.amount_msat;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'HR001', MESSAGE = inv.amount_msat::TEXT;
    END IF;
    UPDATE wallets
       SET available_msat = available_msat + inv.amount_msat,
           received_msat = received_msat + inv.amount_msat, updated_at = p_now
     WHERE id = inv.wallet_id;
    INSERT INTO payments (id, wallet_id, amount_msat, fee_msat, reserved_msat, status, ledger,
                          description, payment_time, payment_hash, payment_preimage, bolt11,
                          idempotency_key, request_hash, created_at)
    VALUES (p_payment_id, p_payer, inv.amount_msat, 0, 0, 'Settled', 'Internal',
            inv.description, p_now, inv.payment_hash, inv.payment_preimage, p_bolt11,
            p_idempotency_key, p_request_hash, p_now);
    RETURN NEXT inv;
END
$$`

const payOwnDown = `DROP FUNCTION IF EXISTS hearth_pay_own(TEXT, TEXT, BIGINT, TEXT, TIMESTAMPTZ, TEXT, TEXT)`

func init() {
	All.MustRegister(onPostgres(payOwnUp), onPostgres(payOwnDown))
}

// onPostgres is a migration that runs query on PostgreSQL and does nothing
// on SQLite.
func onPostgres(query string) func(ctx context.Context, db *bun.DB) error {
	return onDialect(dialect.PG, query)
}

// onDialect is a migration that runs query (one or more statements) on
// the database of dialect d alone.
func onDialect(d dialect.Name, query string) func(ctx context.Context, db *bun.DB) error {
	return func(ctx context.Context, db *bun.DB) error {
		if db.Dialect().Name() != d {
			return nil
		}
		if _, err := db.ExecContext(ctx, query); err != nil {
			return fmt.Errorf("%s migration: %w", d, err)
		}
		return nil
	}
}
