// Package nostrkey keeps a plugin's Nostr key pair: made at the first
// start, stored in one row (id 1) of a table of the plugin's own with the
// columns id, secret, pubkey and created_at, the first stored winning
// between replicas, and read back by every replica. The secret is never
// logged or answered; the plugin signs and encrypts with it.
package nostrkey

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// Key is a plugin's key pair, loaded by Load.
type Key struct {
	mu     sync.Mutex
	secret string
	pubkey string
}

type row struct {
	bun.BaseModel `bun:"alias:k"`
	ID            int       `bun:"id,pk"`
	Secret        string    `bun:"secret"`
	Pubkey        string    `bun:"pubkey"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Load reads the key from table, storing a new one first if there is none.
func (k *Key) Load(ctx context.Context, db *store.DB, table string) error {
	sk := gonostr.GeneratePrivateKey()
	pk, err := gonostr.GetPublicKey(sk)
	if err != nil {
		return fmt.Errorf("making a Nostr key: %w", err)
	}
	fresh := &row{ID: 1, Secret: sk, Pubkey: pk, CreatedAt: time.Now().UTC()}
	if _, err := db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(fresh).ModelTableExpr("? AS k", bun.Ident(table)).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	}); err != nil {
		return fmt.Errorf("storing the Nostr key of %s: %w", table, err)
	}
	got := new(row)
	if err := db.W.NewSelect().Model(got).ModelTableExpr("? AS k", bun.Ident(table)).Where("id = 1").Scan(ctx); err != nil {
		return fmt.Errorf("reading the Nostr key of %s: %w", table, err)
	}
	k.mu.Lock()
	k.secret, k.pubkey = got.Secret, got.Pubkey
	k.mu.Unlock()
	return nil
}

// Pubkey is the public key (hex), "" before Load.
func (k *Key) Pubkey() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.pubkey
}

// Secret is the secret key (hex), "" before Load.
func (k *Key) Secret() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.secret
}

// Use takes secret (hex) as the key without storing it: a key known
// beforehand (a test's).
func (k *Key) Use(secret string) error {
	pk, err := gonostr.GetPublicKey(secret)
	if err != nil {
		return fmt.Errorf("a Nostr secret key: %w", err)
	}
	k.mu.Lock()
	k.secret, k.pubkey = secret, pk
	k.mu.Unlock()
	return nil
}
