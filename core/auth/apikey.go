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

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// API key limits.
const (
	keyPrefix         = "hk_"
	MaxKeyExpiry      = 365 * 24 * time.Hour
	maxKeyNameLen     = 100
	maxKeyDescription = 500
)

// IsAPIKey reports whether credential has the form of an API key (hk_…),
// which no sign-in or OIDC token has.
func IsAPIKey(credential string) bool { return strings.HasPrefix(credential, keyPrefix) }

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

	ID          string  `bun:"id,pk" json:"id"`
	UserID      string  `bun:"user_id,notnull" json:"user_id"`
	Name        string  `bun:"name,notnull" json:"name"`
	Description *string `bun:"description" json:"description,omitempty"`
	Permissions Scopes  `bun:"permissions,notnull,type:text" json:"permissions"`
	// Budget is what the key may pay per period, with what the current
	// period has used (keybudget.go); nil for a key without a budget.
	Budget    *budget.Status `bun:"-" json:"budget,omitempty"`
	KeyHash   string         `bun:"key_hash,notnull" json:"-"`
	IsAdmin   bool           `bun:"is_admin,notnull" json:"-"`
	CreatedBy string         `bun:"created_by,notnull" json:"-"`
	CreatedAt time.Time      `bun:"created_at,notnull" json:"created_at"`
	ExpiresAt *time.Time     `bun:"expires_at" json:"expires_at,omitempty"`
	RevokedAt *time.Time     `bun:"revoked_at" json:"-"`
	Key       string         `bun:"-" json:"key,omitempty"`
	// The budget as kept (migration 20261127000005_budgets): Budget
	// shows it.
	BudgetMaxMsat  *int64  `bun:"budget_max_msat" json:"-"`
	BudgetRenewal  *string `bun:"budget_renewal" json:"-"`
	BudgetUsedMsat int64   `bun:"budget_used_msat,notnull" json:"-"`
	BudgetPeriod   string  `bun:"budget_period,notnull" json:"-"`
	// OwnerPlugin is the plugin that holds the key for its user; nil for a
	// key of the user's own.
	OwnerPlugin *string `bun:"owner_plugin" json:"-"`
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
	// Budget bounds what the key may pay per period; nil for none. It is
	// fixed for the key's life.
	Budget *budget.Spec
	// OwnerPlugin names the plugin that holds the key for its user; ""
	// for a key of the user's own.
	OwnerPlugin string
}

// Keys manages API keys.
type Keys struct {
	db    *store.DB
	now   func() time.Time
	cache *keyCache
}

// NewKeys returns the API key service.
func NewKeys(db *store.DB) *Keys { return &Keys{db: db, now: time.Now, cache: newKeyCache(db)} }

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
	if creator.Budgeted && scopes.Has(WriteTransaction) {
		// A key it made would pay outside its budget.
		return nil, ErrKeyScopeExceeded.Reasonf("A key with a budget cannot make keys that pay (write:transaction)")
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
	if err := key.setBudget(req.Budget, now); err != nil {
		return nil, err
	}
	if req.OwnerPlugin != "" {
		key.OwnerPlugin = &req.OwnerPlugin
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
	return key.presentAt(now), nil
}

// List returns the live keys of userID, or of every user when userID is "";
// the keys plugins hold (delegated.go) are theirs to show.
func (k *Keys) List(ctx context.Context, userID string, page store.Page) ([]APIKey, error) {
	keys := []APIKey{}
	q := k.db.R.NewSelect().Model(&keys).Where("revoked_at IS NULL").Where("owner_plugin IS NULL")
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	if err := page.Apply(q).Scan(ctx); err != nil {
		return nil, fmt.Errorf("listing API keys: %w", err)
	}
	for i := range keys {
		k.present(&keys[i])
	}
	return keys, nil
}

// Get returns the live key id, of userID unless userID is "".
func (k *Keys) Get(ctx context.Context, userID, id string) (*APIKey, error) {
	var key APIKey
	q := k.db.R.NewSelect().Model(&key).Where("id = ?", id).Where("revoked_at IS NULL").Where("owner_plugin IS NULL")
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
	return k.present(&key), nil
}

// Revoke stops key id working at once; of userID unless userID is "".
func (k *Keys) Revoke(ctx context.Context, userID, id string) error {
	q := k.db.W.NewUpdate().Model((*APIKey)(nil)).
		Set("revoked_at = ?", k.now().UTC()).
		Where("id = ?", id).
		Where("revoked_at IS NULL").
		Where("owner_plugin IS NULL")
	if userID != "" {
		q = q.Where("user_id = ?", userID)
	}
	res, err := k.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return q.Conn(w).Exec(ctx)
	})
	// Even after an error, since the revocation may have committed: the
	// cache forgets the key before anyone is told.
	k.db.Changed(store.AuthTopic)
	if err != nil {
		return fmt.Errorf("revoking API key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrKeyNotFound
	}
	return nil
}

// keyAndWallet reads a live key by the hash of its secret, with the id of
// its owner's wallet, into a keyOwner.
var keyAndWallet = store.NewHot(`SELECT k.id, k.user_id, k.permissions, k.is_admin, k.expires_at,
		k.budget_max_msat, k.budget_renewal, w.id AS w_id
	FROM api_keys AS k JOIN wallets AS w ON w.user_id = k.user_id
	WHERE k.key_hash = ? AND k.revoked_at IS NULL`)

// keyOwner is a row of keyAndWallet.
type keyOwner struct {
	APIKey `bun:",extend"`
	Wallet struct {
		ID string `bun:"id"`
	} `bun:"embed:w_"`
}

// Authenticate returns the principal of a live key and the id of its
// owner's wallet ("" when the owner has none yet): from the cache of keys
// in use, or else read together in one query, as every authenticated
// request needs both.
func (k *Keys) Authenticate(ctx context.Context, secret string) (*Principal, string, error) {
	if !strings.HasPrefix(secret, keyPrefix) || len(secret) > 128 {
		return nil, "", ErrInvalidAPIKey
	}
	hash := hashKey(secret)
	now := k.now()
	e, gen, ok := k.cache.get(hash, now)
	if !ok {
		var err error
		if e, err = k.lookup(ctx, hash); err != nil {
			return nil, "", err
		}
		if e.walletID != "" {
			e.readAt = now
			k.cache.put(hash, gen, e)
		}
	}
	if e.expiresAt != nil && !now.Before(*e.expiresAt) {
		return nil, "", ErrInvalidAPIKey
	}
	p := e.principal
	return &p, e.walletID, nil
}

// lookup reads the live key whose secret hashes to hash, with its owner's
// wallet if there is one.
func (k *Keys) lookup(ctx context.Context, hash string) (cachedKey, error) {
	var row keyOwner
	err := k.db.QueryRow(ctx, k.db.R, keyAndWallet, []any{&row}, hash)
	key, walletID := row.APIKey, row.Wallet.ID
	if errors.Is(err, sql.ErrNoRows) {
		// No such key, or its owner has no wallet yet: the key alone.
		walletID = ""
		err = k.db.R.NewSelect().Model(&key).
			Column("id", "user_id", "permissions", "is_admin", "expires_at", "budget_max_msat", "budget_renewal").
			Where("key_hash = ?", hash).
			Where("revoked_at IS NULL").
			Scan(ctx)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return cachedKey{}, ErrInvalidAPIKey
	}
	if err != nil {
		return cachedKey{}, fmt.Errorf("looking up API key: %w", err)
	}
	return cachedKey{
		principal: Principal{
			UserID:   key.UserID,
			Scopes:   key.Permissions,
			Admin:    key.IsAdmin,
			Method:   MethodAPIKey,
			KeyID:    key.ID,
			Budget:   key.renewal(),
			Budgeted: key.BudgetMaxMsat != nil,
		},
		walletID:  walletID,
		expiresAt: key.ExpiresAt,
	}, nil
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
