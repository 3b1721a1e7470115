package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Setting is one row of the instance's key-value settings.
type Setting struct {
	bun.BaseModel `bun:"table:settings"`

	Key       string    `bun:"key,pk"`
	Value     string    `bun:"value,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
}

// GetSetting returns the value of key and whether it is set.
func (db *DB) GetSetting(ctx context.Context, key string) (string, bool, error) {
	var s Setting
	err := db.R.NewSelect().Model(&s).Where("key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading setting %s: %w", key, err)
	}
	return s.Value, true, nil
}

// InsertSetting sets key only when it is not set yet, and reports whether
// this call was the one that set it: of concurrent callers exactly one wins.
func InsertSetting(ctx context.Context, db Executor, key, value string) (bool, error) {
	res, err := db.NewInsert().
		Model(&Setting{Key: key, Value: value, UpdatedAt: time.Now().UTC()}).
		On("CONFLICT (key) DO NOTHING").
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("inserting setting %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PutSetting sets key to value, whether or not it was set.
func PutSetting(ctx context.Context, db Executor, key, value string) error {
	_, err := db.NewInsert().
		Model(&Setting{Key: key, Value: value, UpdatedAt: time.Now().UTC()}).
		On("CONFLICT (key) DO UPDATE").
		Set("value = EXCLUDED.value, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("writing setting %s: %w", key, err)
	}
	return nil
}

// SwapSetting sets key to value only when it currently holds old, and
// reports whether it did: a compare-and-swap with a single winner.
func SwapSetting(ctx context.Context, db Executor, key, old, value string) (bool, error) {
	res, err := db.NewUpdate().Model((*Setting)(nil)).
		Set("value = ?", value).
		Set("updated_at = ?", time.Now().UTC()).
		Where("key = ?", key).
		Where("value = ?", old).
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("swapping setting %s: %w", key, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SettingOrCreate returns the value of key, first storing create's value
// when key is not set; concurrent callers all get the one stored value.
func (db *DB) SettingOrCreate(ctx context.Context, key string, create func() (string, error)) (string, error) {
	if v, ok, err := db.GetSetting(ctx, key); err != nil || ok {
		return v, err
	}
	v, err := create()
	if err != nil {
		return "", err
	}
	if _, err := InsertSetting(ctx, db.W, key, v); err != nil {
		return "", err
	}
	v, ok, err := db.GetSetting(ctx, key)
	if err == nil && !ok {
		err = fmt.Errorf("setting %s vanished", key)
	}
	return v, err
}
