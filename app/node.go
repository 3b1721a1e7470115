package app

import (
	"context"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// EmbeddedNode is the zero-setup node backend (node.backend "embedded"),
// listed among the plugins when it is the node.
func EmbeddedNode() Builtin {
	return Builtin{
		Name:    "node.embedded",
		Backend: "embedded",
		Node: func(ctx context.Context, cfg config.Config, db *store.DB) (ledger.Node, error) {
			return embedded.New(ctx, db, cfg.Node.Network)
		},
		Add: func(_ context.Context, a *App) error {
			if a.Config.Node.Backend != "embedded" {
				return nil
			}
			_, err := a.Registry.RegisterBuiltin(embedded.Manifest(), nil, "")
			return err
		},
	}
}

// WalletExists is the built-ins' check that a wallet exists.
func (a *App) WalletExists(ctx context.Context, id string) error {
	_, err := a.Wallets.Get(ctx, id)
	return err
}
