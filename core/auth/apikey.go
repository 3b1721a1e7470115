package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
)

// API key limits.
const (
	keyPrefix         = "hk_"
	MaxKeyExpiry      = 365 * 24 * time.Hour
	maxKeyNameLen     = 100
	maxKeyDescription = 500
)

// The errors of API key management.
var (
	ErrKeyNotFound      = fault.New(fault.NotFound, "not_found", "API key not found")
	ErrKeyScopeExceeded = fault.New(fault.Unprocessable, "permission_exceeded", "The requested permissions exceed your own")
	ErrKeyInvalid       = fault.New(fault.Unprocessable, "invalid_api_key_request", "Invalid API key request")
)

// APIKey is an API key record. Key holds the secret only in the answer to
// its creation; only its SHA-256 is stored.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID          string     `bun:"id,pk" json:"id"`
	UserID      string     `bun:"user_id,notnull" json:"user_id"`
	Name        string     `bun:"name,notnull" json:"name"`
	Description *string    `bun:"description" json:"description,omitempty"`
	Permissions Scopes     `bun:"permissions,notnull,type:text" json:"permissions"`
	KeyHash     string     `bun:"key_hash,notnull" json:"-"`
	IsAdmin     bool       `bun:"is_admin,notnull" json:"-"`
	CreatedBy   string     `bun:"created_by,notnull" json:"-"`
	CreatedAt   time.Time  `bun:"created_at,notnull" json:"created_at"`
	ExpiresAt   *time.Time `bun:"expires_at" json:"expires_at,omitempty"`
	RevokedAt   *time.Time `bun:"revoked_at" json:"-"`
	Key         string     `bun:"-" json:"key,omitempty"`
}

// NewKey is a request to create an API key.
type NewKey struct {
	// UserID owns the key; empty means the creator.
	UserID      string
	Name        string
	Description *string
	Permissions []string
	// Expiry in seconds from now; nil for a key that does not expire.
	Expiry *int64
}

// Keys manages API keys.
type Keys struct {
	db  *store.DB
	now func() time.Time
}

// NewKeys returns the API key service.
func NewKeys(db *store.DB) *Keys { return &Keys{db: db, now: time.Now} }

// SetClock replaces the clock, for tests.
func (k *Keys) SetClock(now func() time.Time) { k.now = now }

// Create makes a key for req.UserID (or the creator) holding a subset of the
// creator's scopes, and returns it with its secret, which is never shown again.
func (k *Keys) Create(ctx context.Context, creator *Principal, req NewKey) (*APIKey, error) {
	name := strings.TrimSpace(req.Name)
	if name == "" || utf8.RuneCountInString(name) > maxKeyNameLen {
		return nil, ErrKeyInvalid.Reasonf("name must have 1 to %d characters", maxKeyNameLen)
	}
	if req.Description != nil && utf8.RuneCountInString(*req.Description) > maxKeyDescription {
		return nil, ErrKeyInvalid.Reasonf("description must have at most %d characters", maxKeyDescription)
	}
	if len(req.Permissions) == 0 {
		return nil, ErrKeyInvalid.Reasonf("permissions must name at least one permission")
	}
	scopes, err := ParseScopes(req.Permissions)
	if err != nil {
		return nil, ErrKeyInvalid.Reasonf("%s", err.Error())
	}
	if !creator.Scopes.Covers(scopes) {
		return nil, ErrKeyScopeExceeded.Reasonf("The requested permissions exceed your own: %s",
			strings.Join((scopes&^creator.Scopes).Names(), ", "))
	}
	now := k.now().UTC().Truncate(time.Microsecond)
	key := &APIKey{
		ID:          uuid.NewString(),
		UserID:      creator.UserID,
		Name:        name,
		Description: req.Description,
		Permissions: scopes,
		CreatedBy:   creator.UserID,
		CreatedAt:   now,
	}
	if req.UserID != "" {
		key.UserID = req.UserID
	}
	// A key is an admin key only when the admin makes it for themself.
	key.IsAdmin = creator.Admin && key.UserID == creator.UserID
	if req.Expiry != nil {
		if *req.Expiry <= 0 || *req.Expiry > int64(MaxKeyExpiry/time.Second) {
			return nil, ErrKeyInvalid.Reasonf("expiry must be between 1 and %d seconds", int64(MaxKeyExpiry/time.Second))
		}
		exp := now.Add(time.Duration(*req.Expiry) * time.Second)
		key.ExpiresAt = &exp
	}
	secret, err := newKeySecret()
	if err != nil {
		return nil, err
	}
	key.KeyHash = hashKey(secret)
	_, err = k.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(key).Returning("NULL").Exec(ctx)
	})
	if err != nil {
		return nil, fmt.Errorf("inserting API key: %w", err)
	}
	key.Key = secret
	return key, nil
}

// List returns the live keys of userID, or of every user when userID is "".
func (k *Keys) List(ctx context.Context, userID string, page store.Page) ([]APIKey, error) {
	keys := []APIKey{}
	q := k.db.R.NewSelect().Model(&keys).Where("revoked_at IS NULL")
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	if err := page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	return keys, nil
}

// Get returns the live key id, of userID unless userID is "".
func (k *Keys) Get(ctx context.Context, userID, id string) (*APIKey, error) {
	var key APIKey
	q := k.db.R.NewSelect().Model(&key).Where("id = ?", id).Where("revoked_at IS NULL")
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading API key: %w", err)
	}
	return &key, nil
}

// Revoke stops key id working at once; of userID unless userID is "".
func (k *Keys) Revoke(ctx context.Context, userID, id string) error {
	q := k.db.W.NewUpdate().Model((*APIKey)(nil)).
		Set("revoked_at = ?", k.now().UTC()).
		Where("id = ?", id).
		Where("revoked_at IS NULL")
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	res, err := k.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return q.Conn(w).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("revoking API key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrKeyNotFound
	}
	return nil
}

// keyAndWallet reads a live key by the hash of its secret, with its owner's
// wallet, into a keyOwner.
var keyAndWallet = store.NewHot(`SELECT k.id, k.user_id, k.permissions, k.is_admin, k.expires_at,
		w.id AS w_id, w.user_id AS w_user_id, w.label AS w_label,
		w.available_msat AS w_available_msat, w.reserved_msat AS w_reserved_msat,
		w.received_msat AS w_received_msat, w.sent_msat AS w_sent_msat,
		w.fees_paid_msat AS w_fees_paid_msat, w.created_at AS w_created_at, w.updated_at AS w_updated_at
	FROM api_keys AS k JOIN wallets AS w ON w.user_id = k.user_id
	WHERE k.key_hash = ? AND k.revoked_at IS NULL`)

// keyOwner is a row of keyAndWallet.
type keyOwner struct {
	APIKey `bun:",extend"`
	Wallet wallet.Wallet `bun:"embed:w_"`
}

// Authenticate returns the principal of a live key and its owner's wallet,
// read with it in one query, as every authenticated request needs both;
// the wallet is nil when the owner has none yet.
func (k *Keys) Authenticate(ctx context.Context, secret string) (*Principal, *wallet.Wallet, error) {
	if !strings.HasPrefix(secret, keyPrefix) || len(secret) > 128 {
		return nil, nil, ErrInvalidAPIKey
	}
	hash := hashKey(secret)
	var row keyOwner
	err := k.db.QueryRow(ctx, k.db.R, keyAndWallet, []any{&row}, hash)
	key, w := row.APIKey, &row.Wallet
	if errors.Is(err, sql.ErrNoRows) {
		// No such key, or its owner has no wallet yet: the key alone.
		w = nil
		err = k.db.R.NewSelect().Model(&key).
			Column("id", "user_id", "permissions", "is_admin", "expires_at").
			Where("key_hash = ?", hash).
			Where("revoked_at IS NULL").
			Scan(ctx)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, ErrInvalidAPIKey
	}
	if err != nil {
		return nil, nil, fmt.Errorf("looking up API key: %w", err)
	}
	if key.ExpiresAt != nil && !k.now().Before(*key.ExpiresAt) {
		return nil, nil, ErrInvalidAPIKey
	}
	return &Principal{
		UserID: key.UserID,
		Scopes: key.Permissions,
		Admin:  key.IsAdmin,
		Method: MethodAPIKey,
		KeyID:  key.ID,
	}, w, nil
}

func newKeySecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating API key: %w", err)
	}
	return keyPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

func hashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
