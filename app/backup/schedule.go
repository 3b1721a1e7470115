package backup

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The names of scheduled backups: the time is UTC, so that names sort as
// times do.
const (
	schedPrefix = "hearth-backup-"
	schedSuffix = ".tar.gz"
	schedTime   = "20060102T150405.000Z"
)

// Schedule writes a backup into o.Config's backup.dir every
// backup.every, and keeps the newest backup.keep of them, until ctx ends.
// The first is due every after the newest one already in the folder, at
// once when there is none (a server restarted often still backs up once
// every period). A failed backup is logged and tried again at the next.
func Schedule(ctx context.Context, o Options) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	every, dir := o.Config.Backup.Every.Duration, o.Config.BackupDir()
	if every <= 0 {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		o.Log.Error("scheduled backups: making their folder", "dir", dir, "err", err)
		return
	}
	next := time.Now()
	if names := scheduled(dir); len(names) > 0 {
		if at, err := time.Parse(schedTime, strings.TrimSuffix(strings.TrimPrefix(names[len(names)-1], schedPrefix), schedSuffix)); err == nil {
			next = at.Add(every)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
		to := filepath.Join(dir, schedPrefix+time.Now().UTC().Format(schedTime)+schedSuffix)
		res, err := Write(ctx, to, o)
		if err != nil {
			o.Log.Error("scheduled backup failed", "to", to, "err", err)
		} else {
			o.Log.Info("scheduled backup written", "to", res.Path, "bytes", res.Size, "sha256", res.SHA256, "took", res.Took.Round(time.Millisecond))
			if err := prune(dir, o.Config.Backup.Keep); err != nil {
				o.Log.Warn("scheduled backups: removing old ones", "err", err)
			}
		}
		next = time.Now().Add(every)
	}
}

// scheduled lists the scheduled backups in dir, oldest first.
func scheduled(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, schedPrefix) && strings.HasSuffix(n, schedSuffix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// prune removes all but the newest keep scheduled backups in dir, with
// their .sha256 files.
func prune(dir string, keep int) error {
	names := scheduled(dir)
	for _, n := range names[:max(0, len(names)-keep)] {
		p := filepath.Join(dir, n)
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("removing %s: %w", p, err)
		}
		os.Remove(p + ".sha256") //nolint:errcheck // it may be gone already
	}
	return nil
}
