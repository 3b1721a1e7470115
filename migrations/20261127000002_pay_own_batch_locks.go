package migrations

// hearth_pay_own_batch, written out whole: it pays each item of a batch
// with hearth_pay_own in a subtransaction of its own, after locking every
// wallet of the batch, payers and payees, in one global order (hashtext),
// so that the batches of two replicas wait for each other instead of
// deadlocking (20261123000011).
//
// The wallets are now found and locked in one statement: each item's payer,
// and its payee through the unique index on bolt11 (a lateral scalar
// subquery per item, as 20261123000012 found the planner needs). Until now
// the function ran a statement per item to find its payee, with an array
// copied at each, and two more per batch (issue 38: the batch is the
// payments' critical path on PostgreSQL, one at a time).
const payOwnBatchLocksUp = `
CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB)
RETURNS TABLE (ord INT, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
BEGIN
    PERFORM pg_advisory_xact_lock(1213355080, k.h)
       FROM (SELECT DISTINCT hashtext(v.w) AS h
               FROM jsonb_array_elements(p_items) AS e,
                    LATERAL (VALUES (e ->> 'payer'),
                                    ((SELECT i.wallet_id FROM invoices AS i
                                       WHERE i.bolt11 = e ->> 'bolt11' AND i.status = 'Pending'))) AS v (w)
              ORDER BY h) AS k;
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
$$;
`

func init() {
	All.MustRegister(onPostgres(payOwnBatchLocksUp), onPostgres(payOwnBatchPayeesUp))
}
