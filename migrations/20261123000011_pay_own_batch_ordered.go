package migrations

import "strings"

// hearth_pay_own_batch, again, now taking a lock on every wallet of its
// batch up front, in one global order, before any payment runs: the
// wallets it debits or credits (the payers, and the payees of the Pending
// invoices it pays), each as the transaction-level advisory lock
// (1213355080, hashtext(wallet id)), in the order of hashtext. Two batches
// (of two replicas, or of a ledger and a replica) over the same wallets
// therefore wait for each other at the first wallet they share instead of
// deadlocking: neither can hold a wallet that the other has passed, and
// neither touches a row of a wallet (nor an invoice into it, nor a payment
// from it) whose lock it does not hold. Before, each payment locked its
// invoice, payer and payee as it came, and two batches over the same
// wallets broke 150–280 deadlocks a run, each holding both for
// deadlock_timeout. ledger.payInternal takes the same locks on PostgreSQL.
//
// Advisory locks, not row locks: a row that the transaction has locked and
// a payment's subtransaction then updates gets a MultiXact (the lock must
// outlive the update if the subtransaction is undone), and that made every
// batch about a quarter slower. An advisory lock touches no row and writes
// nothing; the key's hash may collide, which only makes two batches wait
// for each other. The payments themselves run as before, each in its own
// subtransaction, a refusal undoing only itself, and the settled invoice
// each answers is read by the UPDATE that settles it, its preimage with it.
const payOwnBatchOrderedUp = `
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
    SELECT array_agg(wallet_id) INTO payees
      FROM invoices WHERE bolt11 = ANY (bolt11s) AND status = 'Pending';
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
$$`

func init() {
	// Down puts back the function of 20261122000007, which locked rows
	// payment by payment.
	payOwnBatchOrderedDown := strings.Replace(payOwnBatchUp, "CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
	All.MustRegister(onPostgres(payOwnBatchOrderedUp), onPostgres(payOwnBatchOrderedDown))
}
