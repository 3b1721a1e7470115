package migrations

import _ "embed" // the functions in use

// payOwnAPIKey is the money path's PostgreSQL functions as this
// migration wrote them (sql/20261127000007_pay_own_api_key.sql, frozen;
// the current text is sql/pay_own.sql). This migration gives hearth_pay_own an eighth
// argument, the API key that made the payment, which it records on the
// payment (payments.api_key_id, 20261127000005), so that a payment made
// with a key is attributed to it on PostgreSQL's batched path too, in the
// same INSERT (no statement more per payment); hearth_pay_own_batch passes
// each item's "api_key". Its down is the functions as 20261127000003 wrote
// them.
//
//go:embed sql/20261127000007_pay_own_api_key.sql
var payOwnAPIKey string

// payOwnSevenArgs is hearth_pay_own's signature before this migration.
const (
	payOwnSevenArgs = `DROP FUNCTION IF EXISTS hearth_pay_own(TEXT, TEXT, BIGINT, TEXT, TIMESTAMPTZ, TEXT, TEXT);`
	payOwnEightArgs = `DROP FUNCTION IF EXISTS hearth_pay_own(TEXT, TEXT, BIGINT, TEXT, TIMESTAMPTZ, TEXT, TEXT, TEXT);`
)

func init() {
	All.MustRegister(onPostgres(payOwnSevenArgs+"\n"+payOwnAPIKey), onPostgres(payOwnEightArgs+"\n"+payOwnGathered))
}
