package host

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// pluginRow is an installed WebAssembly plugin.
type pluginRow struct {
	bun.BaseModel `bun:"table:plugins"`

	Name      string     `bun:"name,pk"`
	Version   string     `bun:"version,notnull"`
	Manifest  string     `bun:"manifest,notnull"`
	SHA256    string     `bun:"sha256,notnull"`
	State     string     `bun:"state,notnull"`
	Granted   string     `bun:"granted,notnull"`
	WalletID  *string    `bun:"wallet_id"`
	Config    string     `bun:"config,notnull"`
	Error     *string    `bun:"error"`
	CreatedAt time.Time  `bun:"created_at,notnull"`
	UpdatedAt *time.Time `bun:"updated_at"`
}

// codeRow is an installed plugin's code, apart from its row: SQLite
// rewrites a whole row for a change of any of its columns.
type codeRow struct {
	bun.BaseModel `bun:"table:plugin_code"`

	Name string `bun:"name,pk"`
	Wasm []byte `bun:"wasm,notnull"`
}

// rows reads and writes plugin rows.
type rows struct{ db *store.DB }

// all reads every plugin row; wasm reads the code of a plugin that starts.
func (r rows) all(ctx context.Context) ([]pluginRow, error) {
	var out []pluginRow
	err := r.db.R.NewSelect().Model(&out).OrderExpr("name ASC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading plugins: %w", err)
	}
	return out, nil
}

// insert stores a plugin's row and its code.
func (r rows) insert(ctx context.Context, row *pluginRow, wasm []byte) error {
	err := r.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&codeRow{Name: row.Name, Wasm: wasm}).Exec(ctx)
		return err
	})
	if err != nil {
		if store.IsUniqueViolation(err) {
			return ErrExists
		}
		return fmt.Errorf("storing plugin: %w", err)
	}
	return nil
}

func (r rows) wasm(ctx context.Context, name string) ([]byte, error) {
	var row codeRow
	err := r.db.R.NewSelect().Model(&row).Where("name = ?", name).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading plugin code: %w", err)
	}
	return row.Wasm, nil
}

// update sets the columns of cols (name = value pairs) of plugin name.
func (r rows) update(ctx context.Context, name string, set map[string]any) error {
	q := r.db.W.NewUpdate().Model((*pluginRow)(nil)).Where("name = ?", name).Set("updated_at = ?", time.Now().UTC())
	for col, v := range set {
		q = q.Set("? = ?", bun.Ident(col), v)
	}
	_, err := r.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return q.Conn(w).Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("updating plugin %s: %w", name, err)
	}
	return nil
}

// updateConfig stores what change makes of plugin name's stored
// configuration, in one transaction that holds the plugin's row from the
// read to the write (FOR UPDATE on PostgreSQL; SQLite's one writer), so
// that replicas configuring it at once apply their changes one after the
// other, none failing for the other's. change's error is returned as is.
func (r rows) updateConfig(ctx context.Context, name string, change func(stored []byte) ([]byte, error)) ([]byte, error) {
	var next []byte
	err := r.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var stored string
		q := tx.NewSelect().Model((*pluginRow)(nil)).Column("config").Where("name = ?", name)
		if r.db.Dialect == store.Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx, &stored); errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("reading plugin %s's config: %w", name, err)
		}
		var err error
		if next, err = change([]byte(stored)); err != nil {
			return err
		}
		_, err = tx.NewUpdate().Model((*pluginRow)(nil)).Set("config = ?", string(next)).Set("updated_at = ?", time.Now().UTC()).
			Where("name = ?", name).Exec(ctx)
		if err != nil {
			return fmt.Errorf("updating plugin %s's config: %w", name, err)
		}
		return nil
	})
	return next, err
}

func (r rows) delete(ctx context.Context, name string) error {
	return r.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*kvRow)(nil)).Where("plugin = ?", name).Exec(ctx); err != nil {
			return fmt.Errorf("deleting plugin keys: %w", err)
		}
		if err := deleteSends(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*timerRow)(nil)).Where("plugin = ?", name).Exec(ctx); err != nil {
			return fmt.Errorf("deleting plugin timers: %w", err)
		}
		if _, err := tx.NewDelete().Model((*codeRow)(nil)).Where("name = ?", name).Exec(ctx); err != nil {
			return fmt.Errorf("deleting plugin code: %w", err)
		}
		if _, err := tx.NewDelete().Model((*pluginRow)(nil)).Where("name = ?", name).Exec(ctx); err != nil {
			return fmt.Errorf("deleting plugin: %w", err)
		}
		return nil
	})
}
