package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hearthwallet/hearth/core/store"
)

const (
	settingJWTSecret = "jwt_secret"
	tokenIssuer      = "hearth"
	// reloadEvery bounds how often the secret is re-read while the settings
	// watch is not live (and so how long another replica's rotation may go
	// unseen then), and how often a token with a bad signature makes it be
	// re-read.
	reloadEvery = time.Second
)

// Tokens issues and verifies the HS256 tokens of password sign-in. The
// signing secret is generated at first start and kept in the database.
//
// A password change on any replica rotates the secret: this process reads
// it again at once when it made the change, and when the settings watch
// reports a change (on PostgreSQL, another replica's NOTIFY), before it
// verifies the next token. While the watch is not live the secret is read
// again at most reloadEvery apart.
type Tokens struct {
	db     *store.DB
	expiry time.Duration
	now    func() time.Time
	watch  *store.Watch
	stale  atomic.Bool // the settings may have changed since the last reload

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
	t.watch = db.Watch(store.SettingsTopic, func() { t.stale.Store(true) })
	fresh, err := newSecret()
	if err != nil {
		return nil, err
	}
	if _, err := store.InsertSetting(ctx, db.W, settingJWTSecret, fresh); err != nil {
		return nil, err
	}
	if err := t.reload(ctx); err != nil {
		t.watch.Close()
		return nil, err
	}
	return t, nil
}

// Close stops following the settings.
func (t *Tokens) Close() { t.watch.Close() }

// SetClock replaces the clock, for tests.
func (t *Tokens) SetClock(now func() time.Time) { t.now = now }

// Issue returns a signed token for userID carrying scopes.
func (t *Tokens) Issue(userID string, scopes Scopes) (string, error) {
	// Not with a secret that another replica has rotated away.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := t.refresh(ctx); err != nil {
		return "", err
	}
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
	if err := t.refresh(ctx); err != nil {
		return nil, err
	}
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

// refresh reads the secret again when the settings may have changed since
// it was read: the watch said so, or it is not live and the last read is
// reloadEvery old.
func (t *Tokens) refresh(ctx context.Context) error {
	if !t.stale.Swap(false) && (t.watch.Live() || !t.reloadDue()) {
		return nil
	}
	if err := t.reload(ctx); err != nil {
		t.stale.Store(true)
		return err
	}
	return nil
}

// rotated puts the secret that rotate wrote to use, once its transaction
// committed, and tells this process's other watchers of the settings (the
// Tokens of another API in the process; other replicas learn it by NOTIFY).
func (t *Tokens) rotated(ctx context.Context) error {
	t.db.Changed(store.SettingsTopic)
	return t.reload(ctx)
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
