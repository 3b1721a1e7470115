package nwc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// connRow is a connection as stored; its id is its delegation's.
type connRow struct {
	bun.BaseModel `bun:"table:nwc_connections,alias:c"`
	ID            string `bun:"id,pk"`
	WalletID      string `bun:"wallet_id"`
	UserID        string `bun:"user_id"`
	Name          string `bun:"name"`
	Pubkey        string `bun:"pubkey"`
	// WalletPubkey is the connection's own wallet key; nil for one made
	// before keys per connection, answered with the shared service key.
	WalletPubkey *string `bun:"wallet_pubkey"`
	// Relays are the relays the connection was paired on, space
	// separated; empty for every relay of the server.
	Relays     string     `bun:"relays"`
	Methods    string     `bun:"methods"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
	// InfoAt dates the connection's info event (unix seconds) once a
	// change of its methods made it anew; nil: its creation dates it.
	InfoAt *int64 `bun:"info_at"`
}

// infoTime is the created_at of the connection's info event.
func (c *connRow) infoTime() int64 {
	if c.InfoAt != nil {
		return *c.InfoAt
	}
	return c.CreatedAt.Unix()
}

func (c *connRow) methods() []string { return strings.Fields(c.Methods) }

func (c *connRow) allows(method string) bool {
	for _, m := range c.methods() {
		if m == method {
			return true
		}
	}
	return false
}

type requestRow struct {
	bun.BaseModel `bun:"table:nwc_requests"`
	EventID       string    `bun:"event_id,pk"`
	ConnectionID  string    `bun:"connection_id"`
	Method        string    `bun:"method"`
	Responses     *string   `bun:"responses"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (p *Plugin) insertConnection(ctx context.Context, c *connRow) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(c).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("storing an NWC connection: %w", err)
	}
	return nil
}

// errNoConnection is a connection that does not exist or was revoked.
var errNoConnection = errors.New("no such connection")

// connection reads a live connection by id, of walletID unless it is "".
func (p *Plugin) connection(ctx context.Context, walletID, id string) (*connRow, error) {
	c := new(connRow)
	q := p.db.R.NewSelect().Model(c).Where("id = ?", id).Where("revoked_at IS NULL")
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoConnection
	}
	if err != nil {
		return nil, fmt.Errorf("reading an NWC connection: %w", err)
	}
	return c, nil
}

// connectionByPubkey reads the live connection of a client key on the
// shared service key.
func (p *Plugin) connectionByPubkey(ctx context.Context, pubkey string) (*connRow, error) {
	c := new(connRow)
	err := p.db.R.NewSelect().Model(c).Where("pubkey = ?", pubkey).Where("wallet_pubkey IS NULL").
		Where("revoked_at IS NULL").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoConnection
	}
	if err != nil {
		return nil, fmt.Errorf("reading an NWC connection: %w", err)
	}
	return c, nil
}

// connections lists the live connections of walletID ("" for every wallet).
func (p *Plugin) connections(ctx context.Context, walletID string, page store.Page) ([]connRow, error) {
	cs := []connRow{}
	q := page.Apply(p.db.R.NewSelect().Model(&cs).Where("revoked_at IS NULL"))
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing NWC connections: %w", err)
	}
	return cs, nil
}

// revokeConnection marks a connection revoked; false when it was not live.
func (p *Plugin) revokeConnection(ctx context.Context, walletID, id string) (bool, error) {
	res, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		q := w.NewUpdate().Model((*connRow)(nil)).Set("revoked_at = ?", time.Now().UTC()).
			Where("id = ?", id).Where("revoked_at IS NULL")
		if walletID != "" {
			q = q.Where("wallet_id = ?", walletID)
		}
		return q.Exec(ctx)
	})
	if err != nil {
		return false, fmt.Errorf("revoking an NWC connection: %w", err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// usedEvery is how often a connection's last use is written at most: an
// app that calls many times a second costs one write a minute, and the
// time shown is right to the minute.
const usedEvery = time.Minute

// used records that conn, as read for this request, served it now, unless
// its last use is within usedEvery: skipped without a statement when the
// row read says so, and otherwise by the update's own condition (another
// request may have written it since).
func (p *Plugin) used(ctx context.Context, conn *connRow) {
	now := p.cfg.Now().UTC()
	if conn.LastUsedAt != nil && conn.LastUsedAt.After(now.Add(-usedEvery)) {
		return
	}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*connRow)(nil)).Set("last_used_at = ?", now).Where("id = ?", conn.ID).
			WhereGroup(" AND ", func(q *bun.UpdateQuery) *bun.UpdateQuery {
				return q.Where("last_used_at IS NULL").WhereOr("last_used_at <= ?", now.Add(-usedEvery))
			}).Exec(ctx)
	})
	if err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "nwc: recording a connection's use", "err", err)
	}
}

// answered returns the responses stored for request event id, nil when
// it has not been answered.
func (p *Plugin) answered(ctx context.Context, id string) (*string, error) {
	r := new(requestRow)
	err := p.db.R.NewSelect().Model(r).Where("event_id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading an NWC request: %w", err)
	}
	return r.Responses, nil
}

// storeAnswer keeps the responses to a request, once: the first answer
// stored is the one every later copy of the request gets.
func (p *Plugin) storeAnswer(ctx context.Context, r *requestRow) (string, error) {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(r).On("CONFLICT (event_id) DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return "", fmt.Errorf("storing an NWC answer: %w", err)
	}
	got, err := p.answered(ctx, r.EventID)
	if err != nil || got == nil {
		return *r.Responses, err
	}
	return *got, nil
}
