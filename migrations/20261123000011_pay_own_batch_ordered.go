package migrations

import "strings"

// hearth_pay_own_batch, again, now taking its row locks up front in one
// global order: first the Pending invoices that the batch pays, by id, then
// every wallet that it debits or credits, by id; only then does each
// payment run, in its own subtransaction, as before. Two batches (of two
// replicas, or of one ledger and a replica) over the same rows therefore
// wait for each other instead of deadlocking: each takes the rows the other
// holds in the same order, so neither can hold one that the other has
// passed. Before, each payment locked its invoice, payer and payee as it
// came, and two batches over the same wallets broke ~150 deadlocks a run,
// each holding both for deadlock_timeout.
//
// Ids are compared byte by byte (COLLATE "C", whatever the database's
// collation), as Go compares strings. The order is the one every other writer of the ledger keeps on
// PostgreSQL: an invoice before a wallet (SettleInvoice; payInternal),
// wallets by id (payInternal), a single wallet (reserves, settlements).
//
// The up-front locks are those that the UPDATEs would take (FOR NO KEY
// UPDATE, not FOR UPDATE), so that an invoice or payment being made for
// one of the wallets meanwhile (its foreign key's FOR KEY SHARE) does not
// wait for the batch. They sit outside the subtransactions, so they are held to
// the commit, which they would be anyway (a payment's subtransaction that
// succeeds keeps its locks to the commit too). A payment refused inside
// still undoes only itself. The settled invoice that each payment answers
// is read by the UPDATE that settles it, its preimage with it.
const payOwnBatchOrderedUp = `
CREATE OR REPLACE FUNCTION hearth_pay_own_batch(p_items JSONB)
RETURNS TABLE (ord INTEGER, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
    bolt11s TEXT[];
    payers TEXT[];
BEGIN
    SELECT array_agg(e ->> 'bolt11'), array_agg(e ->> 'payer')
      INTO bolt11s, payers
      FROM jsonb_array_elements(p_items) AS e;
    PERFORM 1 FROM invoices
     WHERE bolt11 = ANY (bolt11s) AND status = 'Pending'
     ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
    PERFORM 1 FROM wallets
     WHERE id IN (SELECT unnest(payers)
                  UNION SELECT i.wallet_id FROM invoices AS i WHERE i.bolt11 = ANY (bolt11s) AND i.status = 'Pending')
     ORDER BY id COLLATE "C" FOR NO KEY UPDATE;
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
