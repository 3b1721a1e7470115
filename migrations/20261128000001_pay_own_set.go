package migrations

import _ "embed" // the functions in use

// payOwnInUse is the money path's PostgreSQL functions as they are now
// (sql/pay_own.sql), which this migration, the latest to change them,
// applies.
//
//go:embed sql/pay_own.sql
var payOwnInUse string

// This migration has hearth_pay_own_batch pay a batch of two or more
// payments whole first: one UPDATE settles every invoice the batch names,
// one debits each payer by the sum of its payments, one credits each
// payee, one INSERT records every payment, all in a single
// subtransaction. Paid one at a time, each payment ran its four
// statements in a subtransaction of its own, and each statement opened
// its table's indexes and set up its plan anew. Whatever would refuse one
// payment of the batch undoes the whole pass, and the batch is paid one
// payment at a time as before, so each refusal stays its payment's own.
// Its down is the functions as 20261127000009 wrote them.
func init() {
	All.MustRegister(onPostgres(payOwnInUse), onPostgres(payOwnInline))
}
