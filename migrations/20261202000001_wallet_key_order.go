package migrations

import "github.com/uptrace/bun/dialect"

// On SQLite, a wallet's payments in the lists' order carry the key that
// made each (issue 50): the filter by key (the admin's, narrowed to the
// key's wallet, and a wallet's own) then reads the key from the index
// entry and looks up only the payments it keeps, where it read every
// payment of the wallet's list (a key that made none of a wallet's
// 20,000: 45 ms, now 2 ms, on 1,000,000 payments). The index a payment
// enters is the same one, a little wider; PostgreSQL has an index of the
// key of its own (20261129000051).
const walletKeyOrderUp = `DROP INDEX payments_wallet_idx;
CREATE INDEX payments_wallet_idx ON payments (wallet_id, created_at, id, api_key_id)`

const walletKeyOrderDown = `DROP INDEX payments_wallet_idx;
CREATE INDEX payments_wallet_idx ON payments (wallet_id, created_at, id)`

func init() {
	All.MustRegister(onDialect(dialect.SQLite, walletKeyOrderUp), onDialect(dialect.SQLite, walletKeyOrderDown))
}
