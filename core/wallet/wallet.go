// Package wallet keeps wallets: one per user, created on the user's first
// authenticated request or by the admin, each holding its balances in msat.
package wallet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// Limits on wallet fields.
const (
	maxUserIDLen = 128
	maxLabelLen  = 100
)

// The errors of wallet management.
var (
	ErrNotFound = fault.New(fault.NotFound, "not_found", "Wallet not found")
	ErrExists   = fault.New(fault.Conflict, "wallet_exists", "This user already has a wallet")
	ErrNotEmpty = fault.New(fault.Unprocessable, "wallet_not_empty", "The wallet holds funds or has invoices or payments")
	ErrInvalid  = fault.New(fault.Unprocessable, "invalid_wallet", "Invalid wallet")
)

// Balance is a wallet's money, in msat. Invariant: Available + Reserved =
// Received - Sent - FeesPaid.
type Balance struct {
	AvailableMsat int64 `bun:"available_msat,notnull" json:"available_msat"`
	ReservedMsat  int64 `bun:"reserved_msat,notnull" json:"reserved_msat"`
	ReceivedMsat  int64 `bun:"received_msat,notnull" json:"received_msat"`
	SentMsat      int64 `bun:"sent_msat,notnull" json:"sent_msat"`
	FeesPaidMsat  int64 `bun:"fees_paid_msat,notnull" json:"fees_paid_msat"`
}

// Wallet is a wallet record.
type Wallet struct {
	bun.BaseModel `bun:"table:wallets"`

	ID        string     `bun:"id,pk" json:"id"`
	UserID    string     `bun:"user_id,notnull" json:"user_id"`
	Label     *string    `bun:"label" json:"label,omitempty"`
	Balance   Balance    `bun:"embed:" json:"balance"`
	CreatedAt time.Time  `bun:"created_at,notnull" json:"created_at"`
	UpdatedAt *time.Time `bun:"updated_at" json:"updated_at,omitempty"`
	// LnAddress is the wallet's Lightning Address, username@domain, when
	// it has an active one: filled by the plugin that keeps them
	// (plugins/lnurl), not stored here.
	LnAddress *string `bun:"-" json:"ln_address,omitempty"`
	// Currency is the currency its owner reads amounts in (ISO 4217):
	// filled by the plugin that keeps the rates (plugins/rates) while it
	// runs, not stored here.
	Currency *string `bun:"-" json:"currency,omitempty"`
}

// Service manages wallets.
type Service struct {
	db *store.DB
}

// NewService returns the wallet service.
func NewService(db *store.DB) *Service { return &Service{db: db} }

// Ensure returns userID's wallet, creating it on first use.
func (s *Service) Ensure(ctx context.Context, userID string) (*Wallet, error) {
	w, err := s.byUser(ctx, s.db.R, userID)
	if !errors.Is(err, ErrNotFound) {
		return w, err
	}
	_, err = s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(newWallet(userID, nil)).On("CONFLICT (user_id) DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("creating wallet of %s: %w", userID, err)
	}
	return s.byUser(ctx, s.db.W, userID)
}

// Create makes a wallet for userID, who must not have one yet.
func (s *Service) Create(ctx context.Context, userID string, label *string) (*Wallet, error) {
	userID = strings.TrimSpace(userID)
	if userID == "" || utf8.RuneCountInString(userID) > maxUserIDLen {
		return nil, ErrInvalid.Reasonf("user_id must have 1 to %d characters", maxUserIDLen)
	}
	if label != nil && utf8.RuneCountInString(*label) > maxLabelLen {
		return nil, ErrInvalid.Reasonf("label must have at most %d characters", maxLabelLen)
	}
	w := newWallet(userID, label)
	res, err := s.db.Write(ctx, func(ctx context.Context, db bun.IDB) (sql.Result, error) {
		return db.NewInsert().Model(w).On("CONFLICT (user_id) DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("creating wallet of %s: %w", userID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return nil, ErrExists
	}
	return w, nil
}

// Get returns wallet id.
func (s *Service) Get(ctx context.Context, id string) (*Wallet, error) {
	w := new(Wallet)
	err := s.db.R.NewSelect().Model(w).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading wallet %s: %w", id, err)
	}
	return w, nil
}

// List returns a page of wallets.
func (s *Service) List(ctx context.Context, page store.Page) ([]Wallet, error) {
	ws := []Wallet{}
	if err := page.Apply(s.db.R.NewSelect().Model(&ws)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing wallets: %w", err)
	}
	return ws, nil
}

// Delete removes wallet id and revokes its owner's API keys in the same
// transaction, so that no key of a deleted wallet works on (nor creates a
// new wallet for its owner on first use); a wallet that holds or reserves
// funds, or has any invoice or payment, is kept.
func (s *Service) Delete(ctx context.Context, id string) error {
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var owner string
		err := tx.NewDelete().Model((*Wallet)(nil)).
			Where("id = ?", id).
			Where("available_msat = 0 AND reserved_msat = 0").
			Where("NOT EXISTS (SELECT 1 FROM invoices WHERE invoices.wallet_id = ?TableAlias.id)").
			Where("NOT EXISTS (SELECT 1 FROM payments WHERE payments.wallet_id = ?TableAlias.id)").
			Returning("user_id").
			Scan(ctx, &owner)
		if err != nil {
			return err
		}
		_, err = tx.NewUpdate().Table("api_keys").
			Set("revoked_at = ?", time.Now().UTC()).
			Where("user_id = ?", owner).
			Where("revoked_at IS NULL").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("revoking the API keys of %s: %w", owner, err)
		}
		return nil
	})
	// The API keys cached with this wallet are forgotten before anyone is
	// told (see auth.keyCache), even after an error, which may follow a
	// commit.
	s.db.Changed(store.AuthTopic)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("deleting wallet %s: %w", id, err)
	}
	if _, err := s.Get(ctx, id); err != nil {
		return err
	}
	return ErrNotEmpty
}

func (s *Service) byUser(ctx context.Context, db bun.IDB, userID string) (*Wallet, error) {
	w := new(Wallet)
	err := db.NewSelect().Model(w).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading wallet of %s: %w", userID, err)
	}
	return w, nil
}

func newWallet(userID string, label *string) *Wallet {
	return &Wallet{
		ID:        uuid.NewString(),
		UserID:    userID,
		Label:     label,
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
	}
}
