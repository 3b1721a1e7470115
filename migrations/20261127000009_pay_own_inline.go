package migrations

import _ "embed" // the functions as this migration and 20261127000008 wrote them

// payOwnInline is the functions as this migration wrote them
// (sql/20261127000009_pay_own_inline.sql, frozen): its up, and
// 20261128000001's down.
//
//go:embed sql/20261127000009_pay_own_inline.sql
var payOwnInline string

// payOwnLockWhenShared is the functions as 20261127000008 wrote them
// (sql/20261127000008_pay_own_lock_when_shared.sql, frozen): this
// migration's down.
//
//go:embed sql/20261127000008_pay_own_lock_when_shared.sql
var payOwnLockWhenShared string

// This migration has hearth_pay_own_batch run each payment's steps itself
// instead of calling hearth_pay_own, and call hearth_event_id() (which
// names its transaction a writer of events) once, for the first payment
// it pays, taking the others' event ids from the sequence directly;
// hearth_pay_own becomes a batch of one. pgbench, one batch of 22
// payments a transaction: the batch takes some 10 % less time than
// 20261127000008's (docs/performance.md, 2026-11-27, fifth session).
func init() {
	All.MustRegister(onPostgres(payOwnInline), onPostgres(payOwnLockWhenShared))
}
