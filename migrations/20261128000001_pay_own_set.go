package migrations

import _ "embed" // the functions as this migration wrote them

// payOwnSet is the functions as this migration wrote them
// (sql/20261128000001_pay_own_set.sql, frozen): its up, and
// 20261209000002's down.
//
//go:embed sql/20261128000001_pay_own_set.sql
var payOwnSet string

// This migration has hearth_pay_own_batch pay a batch of two or more
// payments whole first, in a single subtransaction: one UPDATE settles
// every invoice the batch names, one debits each payer by the sum of its
// payments, one credits each payee, one INSERT records every payment.
// Paid one at a time, each payment ran four statements in a subtransaction
// of its own, and each statement opened its table's indexes and set up its
// plan anew. Whatever would refuse one payment of the batch undoes the
// whole pass, and the batch is paid one payment at a time as before, so
// each refusal stays its payment's own.
//
// Neither way names an invoice's status where the planner could match it
// to invoices_pending_idx: statistics taken while few invoices were
// Pending made that index look nearly empty, and the planner read every
// Pending invoice through it for each payment.
//
// The batch function takes a third argument, p_whole, which allows the
// whole pass: the ledger leaves it unset for a while after a batch had a
// refusal, so that a client whose payments are refused makes the batches
// beside it pay at most a little more (core/ledger/batch.go).
// Its down is the functions as 20261127000009 wrote them.
func init() {
	All.MustRegister(onPostgres(payOwnBatchTwoArgs+"\n"+payOwnSet), onPostgres(payOwnBatchThreeArgs+"\n"+payOwnInline))
}

// payOwnBatchThreeArgs drops the batch function as this migration makes it.
const payOwnBatchThreeArgs = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB, BOOLEAN, BOOLEAN);`
