package host

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

// Limits of the per-plugin key-value store.
const (
	MaxKeyBytes   = 256
	MaxValueBytes = 64 << 10
	// DefaultKVKeys bounds the keys of one plugin unless the operator sets
	// plugins.kv_keys, so that no plugin fills the database.
	DefaultKVKeys = 10_000
	// MaxKVList is the most keys one kv_list call returns.
	MaxKVList = 1000
)

// kvRow is one key of one plugin.
type kvRow struct {
	bun.BaseModel `bun:"table:plugin_kv"`

	Plugin    string    `bun:"plugin,pk"`
	Key       string    `bun:"key,pk"`
	Value     []byte    `bun:"value,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// kvStore keeps every plugin's keys in the database, namespaced by
// plugin, at most maxKeys each.
type kvStore struct {
	db      *store.DB
	maxKeys int
}

func checkKey(key string) error {
	if key == "" || len(key) > MaxKeyBytes {
		return callErrorf("invalid", "keys are 1 to %d bytes", MaxKeyBytes)
	}
	return nil
}

func (s *kvStore) get(ctx context.Context, plugin, key string) ([]byte, bool, error) {
	if err := checkKey(key); err != nil {
		return nil, false, err
	}
	var row kvRow
	err := s.db.R.NewSelect().Model(&row).Where("plugin = ?", plugin).Where("key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading plugin key: %w", err)
	}
	return row.Value, true, nil
}

func (s *kvStore) set(ctx context.Context, plugin, key string, value []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if len(value) > MaxValueBytes {
		return callErrorf("invalid", "values are at most %d bytes", MaxValueBytes)
	}
	if value == nil {
		value = []byte{}
	}
	// One statement: a key that exists is replaced; a new one is written
	// only while the plugin keeps fewer than its quota. Under PostgreSQL's
	// isolation, new keys written at the same moment may pass the count
	// together: the quota bounds the store, give or take those.
	now := time.Now().UTC()
	res, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		exists := w.NewSelect().Model((*kvRow)(nil)).ColumnExpr("1").Where("plugin = ?", plugin).Where("key = ?", key)
		count := w.NewSelect().Model((*kvRow)(nil)).ColumnExpr("count(*)").Where("plugin = ?", plugin)
		return w.NewRaw(`INSERT INTO plugin_kv (plugin, key, value, updated_at)
SELECT ?, ?, ?, ? WHERE EXISTS (?) OR (?) < ?
ON CONFLICT (plugin, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
			plugin, key, value, now, exists, count, s.quota()).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("writing plugin key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("writing plugin key: %w", err)
	} else if n == 0 {
		return callErrorf("limit", "a plugin keeps at most %d keys (the operator's plugins.kv_keys)", s.quota())
	}
	return nil
}

// quota is the most keys a plugin keeps.
func (s *kvStore) quota() int {
	if s.maxKeys <= 0 {
		return DefaultKVKeys
	}
	return s.maxKeys
}

func (s *kvStore) delete(ctx context.Context, plugin, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewDelete().Model((*kvRow)(nil)).Where("plugin = ?", plugin).Where("key = ?", key).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("deleting plugin key: %w", err)
	}
	return nil
}

// list returns up to limit (at most MaxKVList) of the plugin's keys
// that start with prefix, in order, after the key after: a plugin pages
// through any number of keys by passing the last key it got.
func (s *kvStore) list(ctx context.Context, plugin, prefix, after string, limit int) ([]string, error) {
	if len(prefix) > MaxKeyBytes || len(after) > MaxKeyBytes {
		return nil, callErrorf("invalid", "prefix and after are at most %d bytes", MaxKeyBytes)
	}
	if limit <= 0 || limit > MaxKVList {
		limit = MaxKVList
	}
	keys := []string{}
	q := s.db.R.NewSelect().Model((*kvRow)(nil)).Column("key").Where("plugin = ?", plugin)
	if prefix != "" {
		// A range instead of LIKE: no escaping, same on both databases.
		q = q.Where("key >= ?", prefix).Where("key < ?", prefix+"\U0010FFFF")
	}
	if after != "" {
		q = q.Where("key > ?", after)
	}
	if err := q.OrderExpr("key ASC").Limit(limit).Scan(ctx, &keys); err != nil {
		return nil, fmt.Errorf("listing plugin keys: %w", err)
	}
	out := keys[:0]
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out, nil
}
