
CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB)
RETURNS TABLE (ord INTEGER, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
    bolt11s TEXT[];
    payers TEXT[];
    payees TEXT[];
BEGIN
    SELECT array_agg(e ->> 'bolt11'), array_agg(e ->> 'payer')
      INTO bolt11s, payers
      FROM jsonb_array_elements(p_items) AS e;
    payees := '{}';
    FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
        payees := payees || (SELECT wallet_id FROM invoices
                              WHERE bolt11 = (p_items -> i ->> 'bolt11') AND status = 'Pending');
    END LOOP;
    PERFORM pg_advisory_xact_lock(1213355080, k.h)
       FROM (SELECT DISTINCT hashtext(w) AS h FROM unnest(payers || payees) AS w ORDER BY h) AS k;
    FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
        item := p_items -> i;
        ord := i;
        err_code := NULL;
        err_message := NULL;
        inv := NULL;
        BEGIN
            SELECT * INTO inv FROM hearth_pay_own(
                item ->> 'bolt11', item ->> 'payer', (item ->> 'amount')::BIGINT, item ->> 'id',
                (item ->> 'now')::TIMESTAMPTZ, item ->> 'key', item ->> 'hash');
        EXCEPTION WHEN OTHERS THEN
            err_code := SQLSTATE;
            err_message := SQLERRM;
            inv := NULL;
        END;
        RETURN NEXT;
    END LOOP;
END
$$