-- The money path's PostgreSQL functions as they are now, in one place:
-- hearth_pay_own_batch pays a batch of invoices of the instance, each from
-- another wallet (invoice Pending -> Settled single-winner, debit, credit,
-- the payment record, one event id for both events), after locking every
-- wallet of the batch in one global order when p_lock is set (the ledger
-- sets it unless it knows itself the one replica on the database:
-- core/ledger/alone.go). When p_whole is set, a batch of two or more is
-- first paid whole in one subtransaction (its invoices settled one by one,
-- then its payers, its payees and its records each in one statement for
-- the whole batch); if any of its payments would be refused, that is undone
-- and the batch is paid one payment at a time instead, each in a
-- subtransaction of its own, so that a refusal undoes that payment alone
-- (the ledger leaves p_whole unset for a while after a batch was refused
-- in part: core/ledger/batch.go).
-- hearth_pay_own pays one, as a batch of one, raising its refusal.
-- Neither pays a hold invoice: its payer's amount is held until its owner
-- settles or cancels it (core/ledger/hold.go), which the ledger does in Go.
-- The latest migration that changes them applies this file
-- (20261209000002_pay_own_hold); earlier migrations keep frozen copies
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
        'key', p_idempotency_key, 'hash', p_request_hash, 'api_key', p_api_key_id)), false, false);
    IF r.err_code IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = r.err_code, MESSAGE = r.err_message;
    END IF;
    IF (r.inv).id IS NOT NULL THEN
        RETURN NEXT r.inv;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB, p_lock BOOLEAN, p_whole BOOLEAN)
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
    -- The whole batch's pass: the positions of the payments it settled,
    -- in order, with their invoices, payers and times.
    v_ords INT[];
    v_invs invoices[];
    v_payers TEXT[];
    v_payees TEXT[];
    v_amts BIGINT[];
    v_ats TIMESTAMPTZ[];
    v_npayers INT;
    v_mismatch BOOLEAN := false;
    v_texts TEXT[];            -- every payment's invoice text, payer, time and amount
    v_all_payers TEXT[];
    v_all_ats TIMESTAMPTZ[];
    v_all_amounts BIGINT[];
    v_rows INT;
    v_whole BOOLEAN := false;  -- the batch was paid whole
BEGIN
    IF p_lock THEN
        PERFORM pg_advisory_xact_lock(1213355080, k.h)
           FROM (SELECT DISTINCT hashtext(v.w) AS h
                   FROM jsonb_array_elements(p_items) AS e,
                        LATERAL (VALUES (e ->> 'payer'),
                                        ((SELECT i.wallet_id FROM invoices AS i
                                           WHERE i.bolt11 = e ->> 'bolt11'))) AS v (w)
                  ORDER BY h) AS k;
    END IF;
    -- The whole batch at once: settle every invoice it names, debit each
    -- payer and credit each payee once by their sums, record the payments.
    -- Anything that would refuse a payment (an amount that differs, a payer
    -- short of the sum, a taken id or key, any error) undoes it all, and
    -- the loop below pays the batch one payment at a time. A payment whose
    -- invoice is not settled here (none Pending by that text, or settled by
    -- an earlier payment of the batch) is answered no row, as in the loop.
    IF p_whole AND jsonb_array_length(p_items) > 1 THEN
        BEGIN
            -- One UPDATE settles every invoice the batch names, found by
            -- its text through its unique index. The status is tested in a
            -- CASE, where the planner cannot see it: with it in the
            -- condition the planner may read invoices_pending_idx instead,
            -- which statistics taken while few invoices were Pending make
            -- look nearly empty, and read every Pending invoice. Two
            -- payments of one invoice: the first is paid (array_position).
            SELECT array_agg(e ->> 'bolt11' ORDER BY k), array_agg(e ->> 'payer' ORDER BY k),
                   array_agg((e ->> 'now')::TIMESTAMPTZ ORDER BY k), array_agg((e ->> 'amount')::BIGINT ORDER BY k)
              INTO v_texts, v_all_payers, v_all_ats, v_all_amounts
              FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x (e, k);
            WITH settled AS (
                UPDATE invoices AS u
                   SET status = 'Settled', ledger = 'Internal', amount_received_msat = u.amount_msat,
                       fee_msat = 0, payment_time = v_all_ats[array_position(v_texts, u.bolt11)],
                       updated_at = v_all_ats[array_position(v_texts, u.bolt11)]
                 WHERE u.bolt11 = ANY (v_texts)
                   AND CASE WHEN u.status = 'Pending' AND u.amount_msat > 0 AND NOT u.hold
                            THEN u.expires_at > v_all_ats[array_position(v_texts, u.bolt11)]
                                 AND u.wallet_id <> v_all_payers[array_position(v_texts, u.bolt11)]
                            ELSE false END
                RETURNING array_position(v_texts, u.bolt11) AS k, u AS v)
            SELECT array_agg(s.k - 1 ORDER BY s.k), array_agg(s.v ORDER BY s.k),
                   array_agg(v_all_payers[s.k] ORDER BY s.k), array_agg((s.v).wallet_id ORDER BY s.k),
                   array_agg((s.v).amount_msat ORDER BY s.k), array_agg(v_all_ats[s.k] ORDER BY s.k),
                   coalesce(bool_or(v_all_amounts[s.k] <> (s.v).amount_msat), false)
              INTO v_ords, v_invs, v_payers, v_payees, v_amts, v_ats, v_mismatch
              FROM settled AS s;
            SELECT count(DISTINCT p) INTO v_npayers FROM unnest(v_payers) AS p;
            IF v_mismatch THEN
                RAISE EXCEPTION USING ERRCODE = 'HR002';
            END IF;
            IF v_ords IS NOT NULL THEN
                -- The sums come from unnest, which the planner takes for a
                -- few rows: each wallet is then found by its key, however
                -- many wallets there are.
                UPDATE wallets AS w
                   SET available_msat = w.available_msat - d.total, sent_msat = w.sent_msat + d.total, updated_at = d.at
                  FROM (SELECT x.id, sum(x.msat) AS total, (array_agg(x.at ORDER BY x.k DESC))[1] AS at
                          FROM unnest(v_payers, v_amts, v_ats) WITH ORDINALITY AS x (id, msat, at, k)
                         GROUP BY x.id) AS d
                 WHERE w.id = d.id AND w.available_msat >= d.total;
                GET DIAGNOSTICS v_rows = ROW_COUNT;
                IF v_rows <> v_npayers THEN
                    RAISE EXCEPTION USING ERRCODE = 'HR001';
                END IF;
                -- A payee's updated_at is the time of its last payment,
                -- paid or received, as the loop would leave it.
                UPDATE wallets AS w
                   SET available_msat = w.available_msat + c.total, received_msat = w.received_msat + c.total, updated_at = l.at
                  FROM (SELECT x.id, sum(x.msat) AS total
                          FROM unnest(v_payees, v_amts) AS x (id, msat) GROUP BY x.id) AS c,
                       LATERAL (SELECT v_ats[max(y.k)] AS at
                                  FROM unnest(v_payers, v_payees) WITH ORDINALITY AS y (payer, payee, k)
                                 WHERE y.payer = c.id OR y.payee = c.id) AS l
                 WHERE w.id = c.id;
                v_event := hearth_event_id();
                INSERT INTO payments (id, wallet_id, amount_msat, fee_msat, reserved_msat, status, ledger,
                                      description, payment_time, payment_hash, payment_preimage, bolt11,
                                      idempotency_key, request_hash, created_at, event_id, api_key_id)
                SELECT j.e ->> 'id', v_payers[j.i], (j.v).amount_msat, 0, 0, 'Settled', 'Internal',
                       (j.v).description, v_ats[j.i], (j.v).payment_hash, (j.v).payment_preimage, j.e ->> 'bolt11',
                       j.e ->> 'key', j.e ->> 'hash', v_ats[j.i],
                       CASE WHEN v_event IS NULL THEN NULL
                            WHEN j.i = 1 THEN v_event + 1
                            ELSE nextval('events_id_seq') + 1 END,
                       j.e ->> 'api_key'
                  FROM (SELECT i, v_invs[i] AS v, p_items -> v_ords[i] AS e
                          FROM generate_subscripts(v_ords, 1) AS i) AS j
                 ORDER BY j.i;
            END IF;
            v_whole := true;
        EXCEPTION WHEN OTHERS THEN
            v_event := NULL; -- taken and undone: the loop takes its own
        END;
        IF v_whole THEN
            RETURN QUERY
                SELECT g.o, NULL::TEXT, NULL::TEXT, p.v
                  FROM generate_series(0, jsonb_array_length(p_items) - 1) AS g (o)
                  LEFT JOIN (SELECT v_ords[i] AS o, v_invs[i] AS v FROM generate_subscripts(v_ords, 1) AS i) AS p
                         ON p.o = g.o
                 ORDER BY g.o;
            RETURN;
        END IF;
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
             -- Found by its text alone, then updated by its row (a TID
             -- scan, cheaper than any index): with the status beside the
             -- text, the planner may prefer invoices_pending_idx (see the
             -- whole pass above).
             WHERE u.ctid = (SELECT i.ctid FROM invoices AS i WHERE i.bolt11 = v_bolt11)
               AND u.status = 'Pending' AND u.expires_at > v_now
               AND u.wallet_id <> v_payer AND u.amount_msat > 0 AND NOT u.hold
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
