-- The money path's PostgreSQL functions as they are now, in one place:
-- hearth_pay_own pays one invoice of the instance from another wallet in
-- one statement (debit, invoice Pending -> Settled single-winner, credit,
-- the payment record, one event id for both events), and
-- hearth_pay_own_batch pays a batch of them, each in a subtransaction of
-- its own, after locking every wallet of the batch in one global order
-- when p_lock is set (the ledger sets it unless it knows itself the one
-- replica on the database: core/ledger/alone.go).
-- The latest migration that changes them applies this file
-- (20261127000008_pay_own_lock_when_shared); earlier migrations keep frozen copies
-- of what they wrote (sql/<version>_*.sql). To change a function: edit
-- it here and add a migration that applies this file again, with the
-- current text frozen as its down.

CREATE OR REPLACE FUNCTION hearth_pay_own(
    p_bolt11 TEXT, p_payer TEXT, p_amount BIGINT, p_payment_id TEXT,
    p_now TIMESTAMPTZ, p_idempotency_key TEXT, p_request_hash TEXT, p_api_key_id TEXT)
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
                          idempotency_key, request_hash, created_at, event_id, api_key_id)
    VALUES (p_payment_id, p_payer, inv.amount_msat, 0, 0, 'Settled', 'Internal',
            inv.description, p_now, inv.payment_hash, inv.payment_preimage, p_bolt11,
            p_idempotency_key, p_request_hash, p_now, hearth_event_id() + 1, p_api_key_id);
    RETURN NEXT inv;
END
$$;

CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB, p_lock BOOLEAN)
RETURNS TABLE (ord INT, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
BEGIN
    IF p_lock THEN
        PERFORM pg_advisory_xact_lock(1213355080, k.h)
           FROM (SELECT DISTINCT hashtext(v.w) AS h
                   FROM jsonb_array_elements(p_items) AS e,
                        LATERAL (VALUES (e ->> 'payer'),
                                        ((SELECT i.wallet_id FROM invoices AS i
                                           WHERE i.bolt11 = e ->> 'bolt11' AND i.status = 'Pending'))) AS v (w)
                  ORDER BY h) AS k;
    END IF;
    FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
        item := p_items -> i;
        ord := i;
        err_code := NULL;
        err_message := NULL;
        inv := NULL;
        BEGIN
            SELECT * INTO inv FROM hearth_pay_own(
                item ->> 'bolt11', item ->> 'payer', (item ->> 'amount')::BIGINT, item ->> 'id',
                (item ->> 'now')::TIMESTAMPTZ, item ->> 'key', item ->> 'hash', item ->> 'api_key');
        EXCEPTION WHEN OTHERS THEN
            err_code := SQLSTATE;
            err_message := SQLERRM;
            inv := NULL;
        END;
        RETURN NEXT;
    END LOOP;
END
$$;;
