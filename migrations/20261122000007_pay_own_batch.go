package migrations

// hearth_pay_own_batch runs hearth_pay_own for a batch of payments in one
// statement, hence one round trip and one commit, the way SQLite's group
// commit shares one among the transactions waiting together (see
// ledger.ownBatcher). Each payment runs in a block of its own (a
// subtransaction): a refusal undoes that payment alone and is answered as
// its SQLSTATE and message; the others commit together.
//
// p_items is a JSON array of objects with the arguments of hearth_pay_own
// (bolt11, payer, amount, id, now, key, hash; amount and key may be null).
// Each answer row carries the item's position (ord, from 0); then either
// err_code and err_message, or the settled invoice's columns, or neither
// when hearth_pay_own answered no row.
//
// A batch holds at most 64 subtransactions (ledger.maxOwnBatch is less):
// past that PostgreSQL's per-session cache of them overflows and every
// snapshot taken meanwhile gets slower.
const payOwnBatchUp = `
CREATE FUNCTION hearth_pay_own_batch(p_items JSONB)
RETURNS TABLE (ord INTEGER, err_code TEXT, err_message TEXT, inv invoices)
LANGUAGE plpgsql AS $$
DECLARE
    item JSONB;
BEGIN
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

const payOwnBatchDown = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB)`

func init() {
	All.MustRegister(onPostgres(payOwnBatchUp), onPostgres(payOwnBatchDown))
}
