package migrations

import _ "embed" // the frozen function

// hearth_pay_own_batch of 20261123000011, its payees now found one invoice
// at a time, by the same predicate hearth_pay_own uses (bolt11 = a text),
// which the unique index on bolt11 answers. The earlier
// `bolt11 = ANY (array) AND status = 'Pending'` was planned, inside the
// function, as a walk of the partial index of Pending invoices: some
// 4 ms a batch with 50,000 invoices pending, which cost a single replica
// ~28 % of its internal payments a second and raised their median latency
// at 2,000/s from 1.4 to 5.5 ms (cmd/loadbench). Nothing else changes.
//
// The function as this migration wrote it is frozen in
// sql/20261123000012_pay_own_batch_payees.sql; the one in use is
// sql/pay_own.sql.
//
//go:embed sql/20261123000012_pay_own_batch_payees.sql
var payOwnBatchPayeesUp string

func init() {
	All.MustRegister(onPostgres(payOwnBatchPayeesUp), onPostgres(payOwnBatchOrderedUp))
}
