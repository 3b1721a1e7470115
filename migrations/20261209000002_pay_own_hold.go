package migrations

import _ "embed" // the functions in use

// payOwnInUse is the money path's PostgreSQL functions as they are now
// (sql/pay_own.sql), which this migration, the latest to change them,
// applies.
//
//go:embed sql/pay_own.sql
var payOwnInUse string

// This migration has hearth_pay_own_batch (and so hearth_pay_own) leave
// hold invoices alone: one is not settled by its payer but Accepted, the
// payer's amount held until the invoice's owner settles or cancels it,
// which the ledger does in Go (core/ledger/hold.go). The function answers
// no row for one, as for a text that is no Pending invoice of the
// instance, and the ledger then pays it the way it pays on SQLite. The
// test is one more column of the row the function already reads.
// Its down is the functions as 20261128000001 wrote them.
func init() {
	All.MustRegister(onPostgres(payOwnInUse), onPostgres(payOwnSet))
}
