package migrations

// On PostgreSQL, the payments made with an API key, in the lists' order,
// for the filter by key (GET /v1/payments?api_key_id=…, and a wallet's own
// list): the admin's filter by a key alone has no wallet's index to ride.
// SQLite goes without it: there each index a payment enters costs that
// payment's commit a page more to write, and a payment made with a key is
// the common one (docs/performance.md, 2026-11-28, issue 50); its filter
// by key reads the list's order, and drops the other keys' payments.
const listKeyIndexUp = `CREATE INDEX payments_api_key_idx ON payments (api_key_id, created_at, id) WHERE api_key_id IS NOT NULL`

const listKeyIndexDown = `DROP INDEX IF EXISTS payments_api_key_idx`

func init() {
	All.MustRegister(onPostgres(listKeyIndexUp), onPostgres(listKeyIndexDown))
}
