package migrations

import "strings"

// hearth_pay_own_batch of 20261123000011, its payees now found one invoice
// at a time, by the same predicate hearth_pay_own uses (bolt11 = a text),
// which the unique index on bolt11 answers. The earlier
// `bolt11 = ANY (array) AND status = 'Pending'` was planned, inside the
// function, as a walk of the partial index of Pending invoices: some
// 4 ms a batch with 50,000 invoices pending, which cost a single replica
// ~28 % of its internal payments a second and raised their median latency
// at 2,000/s from 1.4 to 5.5 ms (cmd/loadbench). Nothing else changes.
var payOwnBatchPayeesUp = strings.Replace(payOwnBatchOrderedUp, `    SELECT array_agg(wallet_id) INTO payees
      FROM invoices WHERE bolt11 = ANY (bolt11s) AND status = 'Pending';
`, `    payees := '{}';
    FOR i IN 0 .. jsonb_array_length(p_items) - 1 LOOP
        payees := payees || (SELECT wallet_id FROM invoices
                              WHERE bolt11 = (p_items -> i ->> 'bolt11') AND status = 'Pending');
    END LOOP;
`, 1)

func init() {
	if payOwnBatchPayeesUp == payOwnBatchOrderedUp {
		panic("migrations: 20261123000012 found nothing to replace in hearth_pay_own_batch")
	}
	All.MustRegister(onPostgres(payOwnBatchPayeesUp), onPostgres(payOwnBatchOrderedUp))
}
