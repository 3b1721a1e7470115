package migrations

import _ "embed" // the functions in use

// payOwnGathered is the money path's PostgreSQL functions, hearth_pay_own
// and hearth_pay_own_batch, read in one place: this migration applies the
// file, which holds what 20261126000001 and 20261127000002 wrote (it
// changes nothing of a database migrated up to them). The functions in use
// now are sql/pay_own.sql, which the latest migration that changed them
// applies (20261127000007); this is its text as this migration wrote it.
//
//go:embed sql/20261127000003_pay_own_in_use.sql
var payOwnGathered string

func init() {
	All.MustRegister(onPostgres(payOwnGathered), onPostgres(payOwnEventPairUp+";\n"+payOwnBatchLocksUp))
}
