package app

import (
	"context"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// EmbeddedNode is the zero-setup node backend (node.backend "embedded"),
// listed among the plugins when it is the node.
func EmbeddedNode() Builtin {
	return Builtin{
		Name:    embedded.Manifest().Name,
		Backend: "embedded",
		Node: func(ctx context.Context, cfg config.Config, db *store.DB) (ledger.Node, error) {
			return embedded.New(ctx, db, cfg.Node.Network)
		},
		Add: func(_ context.Context, a *App) error {
			if a.Config.Node.Backend != "embedded" {
				return nil
			}
			return a.RegisterNode(embedded.Manifest())
		},
	}
}

// RegisterNode lists the node backend in use among the plugins, with m,
// its health the node's own check (reachable and synced) when it has one.
func (a *App) RegisterNode(m *host.Manifest) error {
	var ping func(context.Context) error
	if p, ok := a.Node.(interface{ Ping(context.Context) error }); ok {
		ping = p.Ping
	}
	_, err := a.Registry.RegisterNode(m, ping)
	return err
}

// WalletExists is the built-ins' check that a wallet exists.
func (a *App) WalletExists(ctx context.Context, id string) error {
	_, err := a.Wallets.Get(ctx, id)
	return err
}
