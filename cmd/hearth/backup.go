package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
)

// backupCommand is `hearth backup --to FILE`: a backup of the instance,
// the server running or not.
func backupCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("hearth backup", flag.ContinueOnError)
	fs.SetOutput(stdout)
	to := fs.String("to", "", "the archive to write (replaced once whole), with FILE.sha256 beside it")
	without := fs.Bool("without-database", false, "leave the database out (PostgreSQL backed up otherwise)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *to == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("hearth backup needs --to FILE")
	}
	res, err := backup.Write(ctx, *to, backup.Options{Config: cfg, Files: app.BackupFiles(cfg, builtinList()),
		WithoutDatabase: *without, HearthVersion: version, Log: log})
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	m := res.Manifest
	fmt.Fprintf(stdout, "backup written: %s (%d bytes, sha256 %s) in %s\n", res.Path, res.Size, res.SHA256, res.Took.Round(time.Millisecond))
	if res.Rested > 0 {
		fmt.Fprintf(stdout, "the copy gave way to the database's other sessions for %s of it\n", res.Rested.Round(time.Millisecond))
	}
	if p := m.Point; p != nil {
		fmt.Fprintf(stdout, "database: %s at migration %s; point: outbox head %d, %d wallets holding %d msat (%d reserved), %d payments in flight\n",
			m.Database.Kind, m.Database.SchemaVersion, p.OutboxHead, p.Wallets, p.AvailableMsat, p.ReservedMsat, p.PendingPayments)
	} else {
		fmt.Fprintf(stdout, "database: not in the backup (%s)\n", m.Database.Note)
	}
	for _, e := range m.Files {
		if !m.DatabaseFile(e.Name) {
			fmt.Fprintf(stdout, "file: %s (%d bytes)\n", e.Name, e.Size)
		}
	}
	for _, miss := range m.Missing {
		fmt.Fprintf(stdout, "not in the backup: %s\n", miss)
	}
	return nil
}

// restoreCommand is `hearth restore --from FILE [--force]`: the instance
// restored into an empty data directory and database.
func restoreCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hearth restore", flag.ContinueOnError)
	fs.SetOutput(stdout)
	from := fs.String("from", "", "the archive to restore (checked whole first)")
	force := fs.Bool("force", false, "replace the database and files that exist")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("hearth restore needs --from FILE")
	}
	m, err := backup.Restore(ctx, *from, backup.RestoreOptions{Config: cfg, Force: *force,
		Files: app.BackupFiles(cfg, builtinList()), Out: stdout})
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if p := m.Point; p != nil {
		fmt.Fprintf(stdout, "restored the backup of %s: %s database at migration %s, outbox head %d, %d wallets holding %d msat, as the manifest says\n",
			m.CreatedAt.Format(time.RFC3339), m.Database.Kind, m.Database.SchemaVersion, p.OutboxHead, p.Wallets, p.AvailableMsat)
	}
	if p := m.Point; p != nil && p.PendingPayments > 0 {
		fmt.Fprintf(stdout, "%d payments were in flight at the backup: hearth serve asks the node how each ended\n", p.PendingPayments)
	}
	fmt.Fprintln(stdout, "next: hearth serve (it migrates the database if this Hearth is newer), then hearth ledger check")
	return nil
}
