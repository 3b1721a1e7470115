package app

import (
	"context"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
)

// BackupFiles are the files the built-ins listed ask a backup of cfg's
// instance to hold beside the database.
func BackupFiles(cfg config.Config, builtins []Builtin) []backup.File {
	var files []backup.File
	for _, b := range builtins {
		if b.BackupFiles != nil {
			files = append(files, b.BackupFiles(cfg)...)
		}
	}
	return files
}

// BackupOptions are the options of a backup of the application's
// instance.
func (a *App) BackupOptions() backup.Options {
	return backup.Options{Config: a.Config, Files: BackupFiles(a.Config, a.opts.Builtins), HearthVersion: a.opts.Version, Log: a.Log}
}

// startBackground runs the built-ins' work of every replica and, when
// backup.every is set, the scheduled backups: on one replica at a time
// when there is an outbox to elect it (replicas back up one database).
func (a *App) startBackground(ctx context.Context) {
	for _, b := range a.opts.Builtins {
		if b.Background != nil {
			a.goRun("background of "+b.Name, func() { b.Background(ctx, a) })
		}
	}
	if a.Config.Backup.Every.Duration <= 0 {
		return
	}
	schedule := func(ctx context.Context) { backup.Schedule(ctx, a.BackupOptions()) }
	if a.Outbox != nil {
		a.goRun("backups", func() { a.Outbox.Lead(ctx, "backup", schedule) })
		return
	}
	a.goRun("backups", func() { schedule(ctx) })
}
