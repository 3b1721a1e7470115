package migrations

import _ "embed" // the functions in use

// payOwnInUse is the money path's PostgreSQL functions as they are now,
// hearth_pay_own and hearth_pay_own_batch, read in one place: this
// migration applies the file, which holds what 20261126000001 and
// 20261127000002 wrote (it changes nothing of a database migrated up to
// them). A later change edits the file and applies it in a migration of
// its own, its down the file's text as it was, frozen under sql/.
//
//go:embed sql/pay_own.sql
var payOwnInUse string

func init() {
	All.MustRegister(onPostgres(payOwnInUse), onPostgres(payOwnEventPairUp+";\n"+payOwnBatchLocksUp))
}
