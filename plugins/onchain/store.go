package onchain

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// Address is a deposit address as the API shows it (BtcAddress).
type Address struct {
	ID          string             `json:"id"`
	WalletID    string             `json:"wallet_id"`
	Address     string             `json:"address"`
	AddressType ledger.AddressType `json:"address_type"`
	// Used is true once the address has received funds on-chain.
	Used      bool      `json:"used"`
	CreatedAt time.Time `json:"created_at"`
}

// ErrNotFound is an unknown address, a deleted one, or another wallet's on
// /v1/me.
var ErrNotFound = fault.New(fault.NotFound, "not_found", "Bitcoin address not found")

type addressRow struct {
	bun.BaseModel `bun:"table:onchain_addresses"`
	ID            string     `bun:"id,pk"`
	WalletID      string     `bun:"wallet_id"`
	Address       string     `bun:"address"`
	AddressType   string     `bun:"address_type"`
	Used          bool       `bun:"used"`
	DeletedAt     *time.Time `bun:"deleted_at"`
	CreatedAt     time.Time  `bun:"created_at"`
}

func (r *addressRow) api() *Address {
	return &Address{ID: r.ID, WalletID: r.WalletID, Address: r.Address, AddressType: ledger.AddressType(r.AddressType),
		Used: r.Used, CreatedAt: r.CreatedAt.UTC()}
}

type syncRow struct {
	bun.BaseModel `bun:"table:onchain_sync"`
	Name          string    `bun:"name,pk"`
	Height        int64     `bun:"height"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

// cursorName is the one row of onchain_sync.
const cursorName = "deposits"

// unused returns the oldest unused address of walletID of type typ that
// was not deleted, or nil.
func (p *Plugin) unused(ctx context.Context, walletID string, typ ledger.AddressType) (*addressRow, error) {
	var r addressRow
	err := p.db.R.NewSelect().Model(&r).Where("wallet_id = ?", walletID).Where("address_type = ?", string(typ)).
		Where("used = ?", false).Where("deleted_at IS NULL").OrderExpr("created_at, id").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading unused address: %w", err)
	}
	return &r, nil
}

// insertAddress stores a new address.
func (p *Plugin) insertAddress(ctx context.Context, r *addressRow) error {
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(r).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("storing address: %w", err)
	}
	return nil
}

// address reads a live address; walletID "" for any wallet's.
func (p *Plugin) address(ctx context.Context, id, walletID string) (*addressRow, error) {
	var r addressRow
	q := p.db.R.NewSelect().Model(&r).Where("id = ?", id).Where("deleted_at IS NULL")
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("reading address: %w", err)
	}
	return &r, nil
}

// filter selects addresses.
type filter struct {
	walletID string // "" for every wallet
	used     *bool
	typ      ledger.AddressType
	page     store.Page
}

// addresses lists live addresses, newest first unless the page says Asc.
func (p *Plugin) addresses(ctx context.Context, f filter) ([]addressRow, error) {
	rs := []addressRow{}
	q := p.db.R.NewSelect().Model(&rs).Where("deleted_at IS NULL")
	if f.walletID != "" {
		q = q.Where("wallet_id = ?", f.walletID)
	}
	if f.used != nil {
		q = q.Where("used = ?", *f.used)
	}
	if f.typ != "" {
		q = q.Where("address_type = ?", string(f.typ))
	}
	if err := f.page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing addresses: %w", err)
	}
	return rs, nil
}

// deleteAddress hides an address: never handed out or shown again, but a
// deposit that still arrives to it is credited.
func (p *Plugin) deleteAddress(ctx context.Context, id, walletID string) error {
	now := time.Now().UTC()
	res, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		q := w.NewUpdate().Model((*addressRow)(nil)).Set("deleted_at = ?", now).Where("id = ?", id).Where("deleted_at IS NULL")
		if walletID != "" {
			q = q.Where("wallet_id = ?", walletID)
		}
		return q.Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("deleting address: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// walletsOf maps those of addrs that are deposit addresses, deleted ones
// included, to their wallets.
func (p *Plugin) walletsOf(ctx context.Context, addrs []string) (map[string]string, error) {
	out := map[string]string{}
	for len(addrs) > 0 {
		n := min(len(addrs), 500)
		var rs []addressRow
		err := p.db.R.NewSelect().Model(&rs).Column("address", "wallet_id").Where("address IN (?)", bun.In(addrs[:n])).Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("matching addresses: %w", err)
		}
		for _, r := range rs {
			out[r.Address] = r.WalletID
		}
		addrs = addrs[n:]
	}
	return out, nil
}

// markUsed marks addresses used.
func (p *Plugin) markUsed(ctx context.Context, addrs []string) error {
	if len(addrs) == 0 {
		return nil
	}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*addressRow)(nil)).Set("used = ?", true).
			Where("address IN (?)", bun.In(addrs)).Where("used = ?", false).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("marking addresses used: %w", err)
	}
	return nil
}

// cursor returns the height below which every deposit was seen; 0 before
// the first sync.
func (p *Plugin) cursor(ctx context.Context) (int64, error) {
	var r syncRow
	err := p.db.R.NewSelect().Model(&r).Where("name = ?", cursorName).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading the sync cursor: %w", err)
	}
	return r.Height, nil
}

// setCursor stores the cursor.
func (p *Plugin) setCursor(ctx context.Context, height int64) error {
	r := &syncRow{Name: cursorName, Height: height, UpdatedAt: time.Now().UTC()}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(r).On("CONFLICT (name) DO UPDATE").
			Set("height = EXCLUDED.height").Set("updated_at = EXCLUDED.updated_at").Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("storing the sync cursor: %w", err)
	}
	return nil
}
