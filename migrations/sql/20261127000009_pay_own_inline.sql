-- The money path's PostgreSQL functions as they are now, in one place:
-- hearth_pay_own_batch pays a batch of invoices of the instance, each from
-- another wallet (invoice Pending -> Settled single-winner, debit, credit,
-- the payment record, one event id for both events), each in a
-- subtransaction of its own, after locking every wallet of the batch in
-- one global order when p_lock is set (the ledger sets it unless it knows
-- itself the one replica on the database: core/ledger/alone.go);
-- hearth_pay_own pays one, as a batch of one, raising its refusal.
-- The latest migration that changes them applies this file
-- (20261127000009_pay_own_inline); earlier migrations keep frozen copies
-- of what they wrote (sql/<version>_*.sql). To change a function: edit
-- it here and add a migration that applies this file again, with the
-- current text frozen as its down.

CREATE OR REPLACE FUNCTION hearth_pay_own(
    p_bolt11 TEXT, p_payer TEXT, p_amount BIGINT, p_payment_id TEXT,
    p_now TIMESTAMPTZ, p_idempotency_key TEXT, p_request_hash TEXT, p_api_key_id TEXT)
RETURNS SETOF invoices LANGUAGE plpgsql AS $$
DECLARE
    r RECORD;
BEGIN
    SELECT * INTO r FROM hearth_pay_own_batch(jsonb_build_array(jsonb_build_object(
        'bolt11', p_bolt11, 'payer', p_payer, 'amount', p_amount, 'id', p_payment_id, 'now', p_now,
        'key', p_idempotency_key, 'hash', p_request_hash, 'api_key', p_api_key_id)), false);
    IF r.err_code IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = r.err_code, MESSAGE = r.err_message;
    END IF;
    IF (r.inv).id IS NOT NULL THEN
        RETURN NEXT r.inv;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB, p_lock BOOLEAN)
RETURNS TABLE (ord INT, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
    v_event BIGINT;            -- an event id taken and not used yet
    v_named BOOLEAN := false;  -- a paid payment of the batch called hearth_event_id()
    v_off BOOLEAN := false;    -- hearth_event_id() gives no ids (loadbench's rounds without events)
    v_bolt11 TEXT;
    v_payer TEXT;
    v_amount BIGINT;
    v_now TIMESTAMPTZ;
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
        v_bolt11 := item ->> 'bolt11';
        v_payer := item ->> 'payer';
        v_amount := (item ->> 'amount')::BIGINT;
        v_now := (item ->> 'now')::TIMESTAMPTZ;
        -- The steps are written here, not called: a call of a function per
        -- payment, with hearth_event_id() in it, cost the batch some 10 %.
        BEGIN
            UPDATE invoices AS u
               SET status = 'Settled', ledger = 'Internal', amount_received_msat = u.amount_msat,
                   fee_msat = 0, payment_time = v_now, updated_at = v_now
             WHERE u.bolt11 = v_bolt11 AND u.status = 'Pending' AND u.expires_at > v_now
               AND u.wallet_id <> v_payer AND u.amount_msat > 0
            RETURNING u.* INTO inv;
            IF FOUND THEN
                IF v_amount IS NOT NULL AND v_amount <> inv.amount_msat THEN
                    RAISE EXCEPTION USING ERRCODE = 'HR002', MESSAGE = inv.amount_msat::TEXT;
                END IF;
                UPDATE wallets
                   SET available_msat = available_msat - inv.amount_msat,
                       sent_msat = sent_msat + inv.amount_msat, updated_at = v_now
                 WHERE id = v_payer AND available_msat >= inv.amount_msat;
                IF NOT FOUND THEN
                    RAISE EXCEPTION USING ERRCODE = 'HR001', MESSAGE = inv.amount_msat::TEXT;
                END IF;
                UPDATE wallets
                   SET available_msat = available_msat + inv.amount_msat,
                       received_msat = received_msat + inv.amount_msat, updated_at = v_now
                 WHERE id = inv.wallet_id;
                -- The first payment paid calls hearth_event_id(), which names
                -- the transaction a writer of events (in this subtransaction:
                -- a payment undone undoes that too, and the next calls it
                -- again); the others take their ids from the sequence.
                IF NOT v_named THEN
                    v_event := hearth_event_id();
                    v_off := v_event IS NULL;
                ELSIF v_event IS NULL AND NOT v_off THEN
                    v_event := nextval('events_id_seq');
                END IF;
                INSERT INTO payments (id, wallet_id, amount_msat, fee_msat, reserved_msat, status, ledger,
                                      description, payment_time, payment_hash, payment_preimage, bolt11,
                                      idempotency_key, request_hash, created_at, event_id, api_key_id)
                VALUES (item ->> 'id', v_payer, inv.amount_msat, 0, 0, 'Settled', 'Internal',
                        inv.description, v_now, inv.payment_hash, inv.payment_preimage, v_bolt11,
                        item ->> 'key', item ->> 'hash', v_now, v_event + 1, item ->> 'api_key');
                v_event := NULL; -- used; a payment undone leaves its id to the next
                v_named := true;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            err_code := SQLSTATE;
            err_message := SQLERRM;
            inv := NULL;
        END;
        RETURN NEXT;
    END LOOP;
END
$$;
