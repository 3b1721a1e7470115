package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hearthwallet/hearth/core/store"
)

const (
	settingJWTSecret = "jwt_secret"
	tokenIssuer      = "hearth"
	// reloadEvery bounds how often a token with a bad signature makes the
	// secret be re-read, which is how replicas learn of a rotation.
	reloadEvery = time.Second
)

// Tokens issues and verifies the HS256 tokens of password sign-in. The
// signing secret is generated at first start and kept in the database.
type Tokens struct {
	db     *store.DB
	expiry time.Duration
	now    func() time.Time

	mu         sync.RWMutex
	secret     []byte
	lastReload time.Time
}

type tokenClaims struct {
	jwt.RegisteredClaims
	Permissions []string `json:"permissions"`
}

// NewTokens loads the signing secret, creating it on first start.
func NewTokens(ctx context.Context, db *store.DB, expiry time.Duration) (*Tokens, error) {
	t := &Tokens{db: db, expiry: expiry, now: time.Now}
	fresh, err := newSecret()
	if err != nil {
		return nil, err
	}
	if _, err := store.InsertSetting(ctx, db.W, settingJWTSecret, fresh); err != nil {
		return nil, err
	}
	if err := t.reload(ctx); err != nil {
		return nil, err
	}
	return t, nil
}

// SetClock replaces the clock, for tests.
func (t *Tokens) SetClock(now func() time.Time) { t.now = now }

// Issue returns a signed token for userID carrying scopes.
func (t *Tokens) Issue(userID string, scopes Scopes) (string, error) {
	now := t.now()
	claims := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    tokenIssuer,
			Subject:   userID,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(t.expiry)),
		},
		Permissions: scopes.Names(),
	}
	t.mu.RLock()
	secret := t.secret
	t.mu.RUnlock()
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		return "", fmt.Errorf("signing token: %w", err)
	}
	return signed, nil
}

// Verify checks a token and returns its principal.
func (t *Tokens) Verify(ctx context.Context, token string) (*Principal, error) {
	p, err := t.verify(token)
	if errors.Is(err, jwt.ErrTokenSignatureInvalid) && t.reloadDue() {
		if rerr := t.reload(ctx); rerr != nil {
			return nil, rerr
		}
		p, err = t.verify(token)
	}
	if err != nil {
		return nil, ErrInvalidToken
	}
	return p, nil
}

func (t *Tokens) verify(token string) (*Principal, error) {
	t.mu.RLock()
	secret := t.secret
	t.mu.RUnlock()
	var claims tokenClaims
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.now),
	)
	if err != nil {
		return nil, err
	}
	scopes, err := ParseScopes(claims.Permissions)
	if err != nil || claims.Subject == "" {
		return nil, ErrInvalidToken
	}
	return &Principal{
		UserID: claims.Subject,
		Scopes: scopes,
		Admin:  claims.Subject == AdminUserID,
		Method: MethodJWT,
	}, nil
}

// rotate writes a new signing secret inside tx; once tx commits, reload puts
// it to use, and every token issued before stops working.
func (t *Tokens) rotate(ctx context.Context, tx store.Executor) error {
	fresh, err := newSecret()
	if err != nil {
		return err
	}
	return store.PutSetting(ctx, tx, settingJWTSecret, fresh)
}

func (t *Tokens) reloadDue() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.now().Sub(t.lastReload) >= reloadEvery
}

func (t *Tokens) reload(ctx context.Context) error {
	v, ok, err := t.db.GetSetting(ctx, settingJWTSecret)
	if err != nil {
		return fmt.Errorf("loading token secret: %w", err)
	}
	if !ok {
		return errors.New("loading token secret: not set")
	}
	t.mu.Lock()
	t.secret = []byte(v)
	t.lastReload = t.now()
	t.mu.Unlock()
	return nil
}

func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
