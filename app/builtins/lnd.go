package builtins

import (
	"context"
	"path/filepath"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
)

// LND is the lnd node backend (node.backend "lnd"): its [node.lnd]
// section, checked when it is the node, and the node it builds.
func LND() app.Builtin {
	return app.Builtin{
		Name:     lnd.Manifest().Name,
		Sections: func() []config.Section { return []config.Section{app.NewSection(lnd.SectionKey, lnd.DefaultConfig())} },
		Validate: func(cfg config.Config) error {
			if cfg.Node.Backend != "lnd" {
				return nil
			}
			return LNDConfig(cfg).Validate()
		},
		Backend: "lnd",
		Node: func(_ context.Context, cfg config.Config, _ *store.DB) (ledger.Node, error) {
			return lnd.New(LNDConfig(cfg))
		},
		Add: func(_ context.Context, a *app.App) error {
			if a.Config.Node.Backend != "lnd" {
				return nil
			}
			return a.RegisterNode(lnd.Manifest())
		},
		// Every replica keeps the node's channel backup in its own data
		// directory, and a backup holds it.
		Background: func(ctx context.Context, a *app.App) {
			if n, ok := a.Node.(*lnd.Node); ok && a.Config.Node.Backend == "lnd" {
				n.KeepChannelBackup(ctx, ChannelBackupPath(a.Config), a.Log)
			}
		},
		BackupFiles: func(cfg config.Config) []backup.File {
			if cfg.Node.Backend != "lnd" {
				return nil
			}
			return []backup.File{{Name: lnd.ChannelBackupFile, Path: ChannelBackupPath(cfg),
				Use: "on a node restored from the same seed, run `lncli restorechanbackup --multi_file FILE` (its peers then close the channels and pay out its balances on chain)"}}
		},
	}
}

// ChannelBackupPath is where the node's static channel backup is kept.
func ChannelBackupPath(cfg config.Config) string {
	return filepath.Join(cfg.DataDir, filepath.FromSlash(lnd.ChannelBackupFile))
}

// LNDConfig is the [node.lnd] section that app.LoadConfig decoded (its
// defaults for a configuration built otherwise).
func LNDConfig(cfg config.Config) lnd.Config {
	return app.Section(cfg, lnd.SectionKey, lnd.DefaultConfig())
}
