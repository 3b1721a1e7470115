package migrations

// This migration gave hearth_pay_own_batch a second argument, p_lock: the
// batch's wallets are locked up front in one global order only when it is
// set, which a ledger does unless it knows itself the one replica on its
// database (core/ledger/alone.go). The one-argument function went. It
// applied the functions as sql/20261127000008_pay_own_lock_when_shared.sql
// keeps them (payOwnLockWhenShared, frozen); its down is the functions as
// 20261127000007 wrote them.

// The batch function's signatures before and after this migration.
const (
	payOwnBatchOneArg  = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB);`
	payOwnBatchTwoArgs = `DROP FUNCTION IF EXISTS hearth_pay_own_batch(JSONB, BOOLEAN);`
)

func init() {
	All.MustRegister(onPostgres(payOwnBatchOneArg+"\n"+payOwnLockWhenShared), onPostgres(payOwnBatchTwoArgs+"\n"+payOwnAPIKey))
}
