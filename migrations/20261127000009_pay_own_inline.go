package migrations

import _ "embed" // the functions as 20261127000008 wrote them

// payOwnLockWhenShared is the money path's PostgreSQL functions as
// 20261127000008 wrote them (sql/20261127000008_pay_own_lock_when_shared.sql,
// frozen): this migration's down.
//
//go:embed sql/20261127000008_pay_own_lock_when_shared.sql
var payOwnLockWhenShared string

// This migration applies sql/pay_own.sql again: hearth_pay_own_batch runs
// each payment's steps itself instead of calling hearth_pay_own, and marks
// its transaction a writer of events once for the batch rather than once
// a payment (hearth_event_id()), taking each event id from the sequence
// directly; hearth_pay_own becomes a batch of one. pgbench, one batch of
// 22 payments a transaction: the batch took some 10 % less time than
// 20261127000008's (docs/performance.md, 2026-11-27, fifth session).
func init() {
	All.MustRegister(onPostgres(payOwnInUse), onPostgres(payOwnLockWhenShared))
}
