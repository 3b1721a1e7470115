package migrations

import _ "embed" // the functions in use

// payOwnInUse is the money path's PostgreSQL functions as they are now
// (sql/pay_own.sql), which the latest migration that changes them applies
// (20261127000009). This migration gave hearth_pay_own_batch a second
// argument, p_lock: the batch's wallets are locked up front in one global
// order only when it is set, which a ledger does unless it knows itself
// the one replica on its database (core/ledger/alone.go). The one-argument
// function goes. Its down is the functions as 20261127000007 wrote them.
//
//go:embed sql/pay_own.sql
var payOwnInUse string

// The batch function's signatures before and after this migration.
const (
	payOwnBatchOneArg  = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB);`
	payOwnBatchTwoArgs = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB, BOOLEAN);`
)

func init() {
	All.MustRegister(onPostgres(payOwnBatchOneArg+"\n"+payOwnLockWhenShared), onPostgres(payOwnBatchTwoArgs+"\n"+payOwnAPIKey))
}
