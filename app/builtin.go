package app

import (
	"context"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// Builtin is one built-in plugin as the application wires it: its own
// sections of the configuration, and the steps that build it and register
// it with the host. A node backend is a built-in too: the one whose
// Backend is node.backend builds the node. Every field may be nil.
type Builtin struct {
	// Name names the built-in in errors: its plugin's name (node-lnd).
	Name string
	// Sections are its sections of the configuration, new values holding
	// the defaults; LoadConfig decodes the file and the environment into
	// them.
	Sections func() []config.Section
	// Validate checks its sections once loaded.
	Validate func(cfg config.Config) error
	// Backend is the node.backend this built-in is the node of, and Node
	// builds that node.
	Backend string
	Node    func(ctx context.Context, cfg config.Config, db *store.DB) (ledger.Node, error)
	// Add builds it and registers it with the host.
	Add func(ctx context.Context, a *App) error
	// Background, when set, runs in every replica from Start until Close:
	// work on this replica's own state (lnd's channel backup in the data
	// directory).
	Background func(ctx context.Context, a *App)
	// BackupFiles are the files of its own that a backup holds beside the
	// database (lnd's channel backup, Core Lightning's emergency.recover).
	BackupFiles func(cfg config.Config) []backup.File
}
