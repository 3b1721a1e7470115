package lnurl

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
)

// Address is a Lightning Address as the API shows it.
type Address struct {
	bun.BaseModel `bun:"table:ln_addresses"`

	ID          string  `bun:"id,pk" json:"id"`
	WalletID    string  `bun:"wallet_id,notnull" json:"wallet_id"`
	Username    string  `bun:"username,notnull" json:"username"`
	Active      bool    `bun:"active,notnull" json:"active"`
	AllowsNostr bool    `bun:"allows_nostr,notnull" json:"allows_nostr"`
	NostrPubkey *string `bun:"nostr_pubkey" json:"nostr_pubkey,omitempty"`
	// AllowsKeysend publishes the address's keysend address
	// (/.well-known/keysend/<username>, keysend.go); false by default.
	AllowsKeysend bool       `bun:"allows_keysend,notnull" json:"allows_keysend"`
	CreatedAt     time.Time  `bun:"created_at,notnull" json:"created_at"`
	UpdatedAt     *time.Time `bun:"updated_at" json:"updated_at,omitempty"`
}

// The registry's errors.
var (
	ErrNotFound      = fault.New(fault.NotFound, "not_found", "Lightning Address not found")
	ErrUsernameTaken = fault.New(fault.Conflict, "username_taken", "This username is already registered")
	ErrWalletHasOne  = fault.New(fault.Conflict, "ln_address_exists", "This wallet already has a Lightning Address")
)

// insert stores a new address. The unique indexes decide between
// concurrent registrations; which one refused is found out afterwards
// (PostgreSQL has aborted the statement's transaction by then).
func (p *Plugin) insert(ctx context.Context, a *Address) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(a).Exec(ctx)
	})
	if err == nil {
		return nil
	}
	if store.IsUniqueViolation(err) {
		return p.conflict(ctx, a.Username, a.ID)
	}
	return fmt.Errorf("inserting Lightning Address: %w", err)
}

// conflict names the unique rule that refused username for address id.
func (p *Plugin) conflict(ctx context.Context, username, id string) error {
	taken, err := p.db.W.NewSelect().Model((*Address)(nil)).Where("username = ?", username).Where("id <> ?", id).Exists(ctx)
	if err != nil {
		return fmt.Errorf("reading Lightning Addresses: %w", err)
	}
	if taken {
		return ErrUsernameTaken
	}
	return ErrWalletHasOne
}

// update writes a's changed fields, for walletID ("" for any).
func (p *Plugin) update(ctx context.Context, a *Address) error {
	res, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model(a).Column("username", "active", "allows_nostr", "nostr_pubkey", "allows_keysend", "updated_at").
			WherePK().Exec(ctx)
	})
	if err != nil {
		if store.IsUniqueViolation(err) {
			return p.conflict(ctx, a.Username, a.ID)
		}
		return fmt.Errorf("updating Lightning Address: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// remove deletes address id (of walletID unless "").
func (p *Plugin) remove(ctx context.Context, id, walletID string) error {
	res, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		q := w.NewDelete().Model((*Address)(nil)).Where("id = ?", id)
		if walletID != "" {
			q = q.Where("wallet_id = ?", walletID)
		}
		return q.Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("deleting Lightning Address: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// one reads the address matching where.
func (p *Plugin) one(ctx context.Context, where string, arg any) (*Address, error) {
	a := new(Address)
	err := p.db.R.NewSelect().Model(a).Where(where, arg).Limit(1).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("reading Lightning Address: %w", err)
	}
	return a, nil
}

// byUsername returns the active address of username, or ErrNotFound.
func (p *Plugin) byUsername(ctx context.Context, username string) (*Address, error) {
	a, err := p.one(ctx, "username = ?", username)
	if err != nil {
		return nil, err
	}
	if !a.Active {
		return nil, ErrNotFound
	}
	return a, nil
}

// Filter selects addresses for the admin's list.
type Filter struct {
	WalletID string
	Username string
	Active   *bool
	Page     store.Page
}

// list lists addresses.
func (p *Plugin) list(ctx context.Context, f Filter) ([]Address, error) {
	out := []Address{}
	q := p.db.R.NewSelect().Model(&out)
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	if f.Username != "" {
		q = q.Where("username = ?", f.Username)
	}
	if f.Active != nil {
		q = q.Where("active = ?", *f.Active)
	}
	if err := f.Page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing Lightning Addresses: %w", err)
	}
	return out, nil
}

// presentWallets fills the wallets' ln_address with their active address.
func (p *Plugin) presentWallets(ctx context.Context, ws []*wallet.Wallet) error {
	ids := make([]string, len(ws))
	for i, w := range ws {
		ids[i] = w.ID
	}
	var as []Address
	if err := p.db.R.NewSelect().Model(&as).Where("wallet_id IN (?)", bun.In(ids)).Where("active = ?", true).Scan(ctx); err != nil {
		return fmt.Errorf("reading Lightning Addresses: %w", err)
	}
	by := make(map[string]string, len(as))
	for _, a := range as {
		by[a.WalletID] = p.addressOf(a.Username)
	}
	for _, w := range ws {
		if s, ok := by[w.ID]; ok {
			w.LnAddress = &s
		}
	}
	return nil
}

// addressOf is username@domain.
func (p *Plugin) addressOf(username string) string { return username + "@" + p.cfg.Domain }

func newID() string { return uuid.Must(uuid.NewV7()).String() }
