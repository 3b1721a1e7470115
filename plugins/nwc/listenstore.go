package nwc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// revokedHeard is how long the service goes on hearing the requests to a
// revoked connection's wallet key, to answer them UNAUTHORIZED (and to
// publish the deletion of its info event on a relay that comes back).
const revokedHeard = 7 * 24 * time.Hour

// listened reads the connections with keys of their own that the service
// listens for: the live ones, and those revoked in the last revokedHeard,
// oldest first (the subscription's order, so that a new connection
// changes only the last of its filters).
func (p *Plugin) listened(ctx context.Context) ([]connRow, error) {
	var cs []connRow
	err := p.db.R.NewSelect().Model(&cs).
		Column("id", "pubkey", "wallet_pubkey", "relays", "methods", "created_at", "revoked_at", "info_at").
		Where("wallet_pubkey IS NOT NULL").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("revoked_at IS NULL").WhereOr("revoked_at > ?", p.cfg.Now().Add(-revokedHeard).UTC())
		}).
		OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the NWC wallet keys: %w", err)
	}
	return cs, nil
}

// connectionByWalletPubkey reads the connection of a wallet key, revoked
// or not.
func (p *Plugin) connectionByWalletPubkey(ctx context.Context, walletPubkey string) (*connRow, error) {
	c := new(connRow)
	err := p.db.R.NewSelect().Model(c).Where("wallet_pubkey = ?", walletPubkey).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoConnection
	}
	if err != nil {
		return nil, fmt.Errorf("reading an NWC connection: %w", err)
	}
	return c, nil
}

// connectionTo is the connection a request from client to the wallet key
// to is of, and the secret that answers it. The shared service key answers
// the live connection of client made before keys per connection; a
// connection's own key answers its app alone. A revoked connection, or a
// client that is not the connection's, is errNoConnection, with the
// secret to answer UNAUTHORIZED; secret is "" when no key of the service
// is to.
func (p *Plugin) connectionTo(ctx context.Context, to, client string) (conn *connRow, secret string, err error) {
	if to == p.ServicePubkey() {
		conn, err = p.connectionByPubkey(ctx, client)
		return conn, p.secretKey(), err
	}
	conn, err = p.connectionByWalletPubkey(ctx, to)
	if err != nil {
		return nil, "", err
	}
	if secret, err = p.secretOf(conn); err != nil {
		return nil, "", err
	}
	if conn.RevokedAt != nil || conn.Pubkey != client {
		return nil, secret, errNoConnection
	}
	return conn, secret, nil
}
