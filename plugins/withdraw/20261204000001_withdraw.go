package withdraw

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/migrations"
)

// The tables of the built-in withdraw plugin (plugins/withdraw), read and
// written by it alone:
//
//   - withdraw_links: a wallet's links, with the secret of their URL
//     (token), their k1, and the delegation they pay through; used counts
//     the uses claimed, last_claim_at the latest (the wait between two);
//     a revoked link keeps its row for its claims' sake;
//   - withdraw_claims: each use, one per link and invoice (unique: the
//     same invoice submitted again is the same claim), pending until it is
//     paid or failed.
const withdrawUp = `
CREATE TABLE withdraw_links (
    id            TEXT PRIMARY KEY,
    wallet_id     TEXT NOT NULL,
    token         TEXT NOT NULL,
    k1            TEXT NOT NULL,
    delegation_id TEXT NOT NULL,
    title         TEXT NOT NULL,
    min_msat      BIGINT NOT NULL,
    max_msat      BIGINT NOT NULL,
    uses          INTEGER NOT NULL,
    used          INTEGER NOT NULL,
    wait_seconds  INTEGER NOT NULL,
    last_claim_at TIMESTAMPTZ,
    expires_at    TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX withdraw_links_token_idx ON withdraw_links (token);
CREATE INDEX withdraw_links_wallet_idx ON withdraw_links (wallet_id, created_at, id);
CREATE INDEX withdraw_links_created_idx ON withdraw_links (created_at, id);
CREATE TABLE withdraw_claims (
    id           TEXT PRIMARY KEY,
    link_id      TEXT NOT NULL,
    payment_hash TEXT NOT NULL,
    bolt11       TEXT NOT NULL,
    amount_msat  BIGINT NOT NULL,
    state        TEXT NOT NULL,
    payment_id   TEXT,
    error        TEXT,
    created_at   TIMESTAMPTZ NOT NULL,
    done_at      TIMESTAMPTZ,
    UNIQUE (link_id, payment_hash)
);
CREATE INDEX withdraw_claims_link_idx ON withdraw_claims (link_id, created_at);
CREATE INDEX withdraw_claims_pending_idx ON withdraw_claims (created_at) WHERE state = 'pending';
`

const withdrawDown = `
DROP TABLE IF EXISTS withdraw_claims;
DROP TABLE IF EXISTS withdraw_links;
`

func init() {
	migrations.All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, withdrawUp)
		return err
	}, func(ctx context.Context, db *bun.DB) error {
		_, err := db.ExecContext(ctx, withdrawDown)
		return err
	})
}
