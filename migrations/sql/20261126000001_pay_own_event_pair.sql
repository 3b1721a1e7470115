CREATE OR REPLACE FUNCTION hearth_pay_own(
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
                          idempotency_key, request_hash, created_at, event_id)
    VALUES (p_payment_id, p_payer, inv.amount_msat, 0, 0, 'Settled', 'Internal',
            inv.description, p_now, inv.payment_hash, inv.payment_preimage, p_bolt11,
            p_idempotency_key, p_request_hash, p_now, hearth_event_id() + 1);
    RETURN NEXT inv;
END
$$
