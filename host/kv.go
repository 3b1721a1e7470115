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
	// MaxKeys bounds the keys of one plugin, so that no plugin fills the
	// database.
	MaxKeys   = 10_000
	maxKVList = 1000
)

// kvRow is one key of one plugin.
type kvRow struct {
	bun.BaseModel `bun:"table:plugin_kv"`

	Plugin    string    `bun:"plugin,pk"`
	Key       string    `bun:"key,pk"`
	Value     []byte    `bun:"value,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// kvStore keeps every plugin's keys in the database, namespaced by plugin.
type kvStore struct{ db *store.DB }

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
	if _, exists, err := s.get(ctx, plugin, key); err != nil {
		return err
	} else if !exists {
		n, err := s.db.R.NewSelect().Model((*kvRow)(nil)).Where("plugin = ?", plugin).Count(ctx)
		if err != nil {
			return fmt.Errorf("counting plugin keys: %w", err)
		}
		if n >= MaxKeys {
			return callErrorf("limit", "a plugin keeps at most %d keys", MaxKeys)
		}
	}
	row := &kvRow{Plugin: plugin, Key: key, Value: value, UpdatedAt: time.Now().UTC()}
	_, err := s.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(row).
			On("CONFLICT (plugin, key) DO UPDATE").
			Set("value = EXCLUDED.value, updated_at = EXCLUDED.updated_at").
			Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("writing plugin key: %w", err)
	}
	return nil
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

func (s *kvStore) list(ctx context.Context, plugin, prefix string) ([]string, error) {
	if len(prefix) > MaxKeyBytes {
		return nil, callErrorf("invalid", "prefix longer than %d bytes", MaxKeyBytes)
	}
	keys := []string{}
	q := s.db.R.NewSelect().Model((*kvRow)(nil)).Column("key").Where("plugin = ?", plugin)
	if prefix != "" {
		// A range instead of LIKE: no escaping, same on both databases.
		q = q.Where("key >= ?", prefix).Where("key < ?", prefix+"\U0010FFFF")
	}
	if err := q.OrderExpr("key ASC").Limit(maxKVList).Scan(ctx, &keys); err != nil {
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
