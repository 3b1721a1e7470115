package builtins

import (
	"context"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/plugins/node/cln"
)

// CLN is the Core Lightning node backend (node.backend "cln"): its [node.cln]
// section, checked when it is the node, and the node it builds.
func CLN() app.Builtin {
	return app.Builtin{
		Name:     cln.Manifest().Name,
		Sections: func() []config.Section { return []config.Section{app.NewSection(cln.SectionKey, cln.DefaultConfig())} },
		Validate: func(cfg config.Config) error {
			if cfg.Node.Backend != "cln" {
				return nil
			}
			return CLNConfig(cfg).Validate()
		},
		Backend: "cln",
		Node: func(_ context.Context, cfg config.Config, _ *store.DB) (ledger.Node, error) {
			return cln.New(CLNConfig(cfg))
		},
		Add: func(_ context.Context, a *app.App) error {
			if a.Config.Node.Backend != "cln" {
				return nil
			}
			return a.RegisterNode(cln.Manifest())
		},
		BackupFiles: func(cfg config.Config) []backup.File {
			if cfg.Node.Backend != "cln" {
				return nil
			}
			return []backup.File{{Name: "cln/emergency.recover", Path: CLNConfig(cfg).EmergencyRecoverPath(),
				Use: "on a node restored from the same hsm_secret, copy it to <lightning-dir>/<network>/emergency.recover and run `lightning-cli emergencyrecover` (its peers then close the channels)"}}
		},
	}
}

// CLNConfig is the [node.cln] section that app.LoadConfig decoded (its
// defaults for a configuration built otherwise).
func CLNConfig(cfg config.Config) cln.Config {
	return app.Section(cfg, cln.SectionKey, cln.DefaultConfig())
}
