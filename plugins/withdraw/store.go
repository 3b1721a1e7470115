package withdraw

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// ErrNotFound is an unknown link, a revoked one, or another wallet's on
// /v1/me.
var ErrNotFound = fault.New(fault.NotFound, "withdraw_link_not_found", "Withdraw link not found")

// linkRow is a link as stored.
type linkRow struct {
	bun.BaseModel `bun:"table:withdraw_links"`

	ID           string     `bun:"id,pk"`
	WalletID     string     `bun:"wallet_id,notnull"`
	Token        string     `bun:"token,notnull"`
	K1           string     `bun:"k1,notnull"`
	DelegationID string     `bun:"delegation_id,notnull"`
	Title        string     `bun:"title,notnull"`
	MinMsat      int64      `bun:"min_msat,notnull"`
	MaxMsat      int64      `bun:"max_msat,notnull"`
	Uses         int        `bun:"uses,notnull"`
	Used         int        `bun:"used,notnull"`
	WaitSeconds  int        `bun:"wait_seconds,notnull"`
	LastClaimAt  *time.Time `bun:"last_claim_at"`
	ExpiresAt    *time.Time `bun:"expires_at"`
	RevokedAt    *time.Time `bun:"revoked_at"`
	CreatedAt    time.Time  `bun:"created_at,notnull"`
}

// The states of a claim.
const (
	claimPending = "pending"
	claimPaid    = "paid"
	claimFailed  = "failed"
)

// claimRow is one use of a link.
type claimRow struct {
	bun.BaseModel `bun:"table:withdraw_claims"`

	ID          string     `bun:"id,pk"`
	LinkID      string     `bun:"link_id,notnull"`
	PaymentHash string     `bun:"payment_hash,notnull"`
	Bolt11      string     `bun:"bolt11,notnull"`
	AmountMsat  int64      `bun:"amount_msat,notnull"`
	State       string     `bun:"state,notnull"`
	PaymentID   *string    `bun:"payment_id"`
	Error       *string    `bun:"error"`
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	DoneAt      *time.Time `bun:"done_at"`
}

func (p *Plugin) insertLinks(ctx context.Context, rs []linkRow) error {
	if _, err := p.db.W.NewInsert().Model(&rs).Exec(ctx); err != nil {
		return fmt.Errorf("storing withdraw links: %w", err)
	}
	return nil
}

// link reads a live link by id, of walletID unless walletID is "".
func (p *Plugin) link(ctx context.Context, id, walletID string) (*linkRow, error) {
	var r linkRow
	q := p.db.R.NewSelect().Model(&r).Where("id = ?", id).Where("revoked_at IS NULL")
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := q.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("reading a withdraw link: %w", err)
	}
	return &r, nil
}

// byToken reads the link whose URL holds token, revoked or not.
func (p *Plugin) byToken(ctx context.Context, token string) (*linkRow, error) {
	var r linkRow
	if err := p.db.R.NewSelect().Model(&r).Where("token = ?", token).Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("reading a withdraw link: %w", err)
	}
	return &r, nil
}

// links lists the live links, newest first; walletID "" for every
// wallet's.
func (p *Plugin) links(ctx context.Context, walletID string, page store.Page) ([]linkRow, error) {
	var rs []linkRow
	q := p.db.R.NewSelect().Model(&rs).Where("revoked_at IS NULL")
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing withdraw links: %w", err)
	}
	return rs, nil
}

// revoke marks a live link revoked; false when there was none.
func (p *Plugin) revoke(ctx context.Context, id string, now time.Time) (bool, error) {
	res, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*linkRow)(nil)).Set("revoked_at = ?", now).
			Where("id = ?", id).Where("revoked_at IS NULL").Exec(ctx)
	})
	if err != nil {
		return false, fmt.Errorf("revoking a withdraw link: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// claims lists a link's claims, newest first (at most limit).
func (p *Plugin) claims(ctx context.Context, linkID string, limit int) ([]claimRow, error) {
	var rs []claimRow
	err := p.db.R.NewSelect().Model(&rs).Where("link_id = ?", linkID).OrderExpr("created_at DESC, id DESC").Limit(limit).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing a link's claims: %w", err)
	}
	return rs, nil
}

// claimByHash reads the link's claim of an invoice, nil when none.
func (p *Plugin) claimByHash(ctx context.Context, linkID, hash string) (*claimRow, error) {
	var r claimRow
	err := p.db.R.NewSelect().Model(&r).Where("link_id = ?", linkID).Where("payment_hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading a claim: %w", err)
	}
	return &r, nil
}

// pendingClaims lists up to n claims pending since before.
func (p *Plugin) pendingClaims(ctx context.Context, before time.Time, n int) ([]claimRow, error) {
	var rs []claimRow
	err := p.db.R.NewSelect().Model(&rs).Where("state = ?", claimPending).Where("created_at <= ?", before).
		OrderExpr("created_at").Limit(n).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading pending claims: %w", err)
	}
	return rs, nil
}
