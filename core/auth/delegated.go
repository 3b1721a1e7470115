package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

// Delegated keys are API keys a plugin holds for a user (host.Caller's
// delegations): made through one of the plugin's authenticated routes,
// within the caller's permissions, with the plugin's name as their owner.
// Their secret is dropped at creation, so they never authenticate a
// request; the plugin acts with them through the host by id. They are not
// listed among the user's API keys: the plugin shows and revokes them
// (the NWC connections).

// Delegate makes a key for plugin on behalf of creator (see Create); the
// answer carries no secret.
func (k *Keys) Delegate(ctx context.Context, creator *Principal, plugin string, req NewKey) (*APIKey, error) {
	if plugin == "" {
		return nil, fmt.Errorf("delegating a key: no plugin named")
	}
	req.OwnerPlugin = plugin
	key, err := k.Create(ctx, creator, req)
	if err != nil {
		return nil, err
	}
	key.Key = ""
	return key, nil
}

// Delegated returns plugin's live, unexpired key id, with its owner's
// wallet id and its budget as used now; ErrKeyNotFound otherwise.
func (k *Keys) Delegated(ctx context.Context, plugin, id string) (*APIKey, string, error) {
	var row keyOwner
	err := k.db.R.NewSelect().Model(&row).ModelTableExpr("api_keys AS k").
		ColumnExpr("k.*").ColumnExpr("w.id AS w_id").
		Join("JOIN wallets AS w ON w.user_id = k.user_id").
		Where("k.id = ?", id).Where("k.owner_plugin = ?", plugin).Where("k.revoked_at IS NULL").
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", ErrKeyNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading delegated key: %w", err)
	}
	key := row.APIKey
	if key.ExpiresAt != nil && !k.now().Before(*key.ExpiresAt) {
		return nil, "", ErrKeyNotFound
	}
	k.present(&key)
	return &key, row.Wallet.ID, nil
}

// RevokeDelegated stops plugin's key id at once.
func (k *Keys) RevokeDelegated(ctx context.Context, plugin, id string) error {
	res, err := k.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewUpdate().Model((*APIKey)(nil)).
			Set("revoked_at = ?", k.now().UTC()).
			Where("id = ?", id).Where("owner_plugin = ?", plugin).Where("revoked_at IS NULL").
			Exec(ctx)
	})
	k.db.Changed(store.AuthTopic)
	if err != nil {
		return fmt.Errorf("revoking delegated key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ErrKeyNotFound
	}
	return nil
}
