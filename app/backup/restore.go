package backup

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
)

// RestoredDir is the folder of the data directory where a restore puts
// the node's files: not where the server keeps its own (it would write
// the new node's over them before anyone used them).
const RestoredDir = "restored"

// RestoreOptions say where to restore.
type RestoreOptions struct {
	Config config.Config
	// Force restores into a data directory or database that holds
	// something: the database is replaced (on PostgreSQL the dump's
	// objects are dropped first; others stay), files are overwritten.
	Force bool
	// Files are the node's files as this build names them, for what to
	// do with each (File.Use).
	Files []File
	// Out receives what the operator should know and do next.
	Out io.Writer
}

// Verify checks the archive at p whole (and its .sha256 file beside it,
// when there is one) without writing anything, and returns its manifest.
func Verify(p string) (*Manifest, error) {
	if err := checkSum(p); err != nil {
		return nil, err
	}
	return scan(p, nil)
}

// Restore restores the archive at from into the data directory and the
// database of o.Config: it verifies the whole archive first, refuses a
// data directory or database that holds anything (unless o.Force), puts
// the database in place, the node's files under RestoredDir, and checks
// the restored database against the archive's point. It refuses while a
// server runs on them (store.OwnDir, store.OwnDatabase), and holds them
// until it returns.
func Restore(ctx context.Context, from string, o RestoreOptions) (*Manifest, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	m, err := Verify(from)
	if err != nil {
		return nil, err
	}
	cfg := o.Config
	so := store.Options{SQLitePath: cfg.SQLitePath()}
	kind := store.SQLite
	if so.SQLitePath == "" {
		so.PostgresURL, kind = cfg.DatabaseURL, store.Postgres
	}
	if m.Database.Kind != string(kind) {
		return nil, fmt.Errorf("the backup holds a %s database and this configuration names %s: restore into the same kind of database", m.Database.Kind, kind)
	}
	if latest := store.LatestMigration(); m.Database.SchemaVersion > latest {
		return nil, fmt.Errorf("the backup's database is at migration %s, later than this Hearth knows (%s): restore it with the Hearth that made it (%s) or a later one",
			m.Database.SchemaVersion, latest, m.HearthVersion)
	}
	// No server may run on what is replaced, here or on another machine
	// (PostgreSQL), and none may start until the restore is done.
	dirLock, err := store.OwnDir(cfg.DataDir, "restore")
	if err != nil {
		return nil, err
	}
	defer dirLock.Release()
	dbLock, err := store.OwnDatabase(ctx, so, "restore")
	if err != nil {
		return nil, err
	}
	defer dbLock.Release()
	if err := refuseNonEmpty(ctx, cfg.DataDir, so, m, o.Force); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(cfg.DataDir, ".hearth-restore-")
	if err != nil {
		return nil, fmt.Errorf("making the staging folder: %w", err)
	}
	defer os.RemoveAll(stage)
	if _, err := scan(from, func(e Entry, r io.Reader) error { return extract(stage, e, r) }); err != nil {
		return nil, err
	}
	if m.Database.Included {
		if err := restoreDatabase(ctx, so, stage, m, o.Force); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(o.Out, "The backup holds no database (%s).\n", m.Database.Note)
	}
	return m, placeNodeFiles(cfg.DataDir, stage, m, o)
}

// refuseNonEmpty refuses, unless force, a data directory with anything in
// it or a database that holds anything.
func refuseNonEmpty(ctx context.Context, dataDir string, so store.Options, m *Manifest, force bool) error {
	var held []string
	entries, err := os.ReadDir(dataDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading the data directory: %w", err)
	}
	for _, e := range entries {
		if e.Name() != store.DirLockFile {
			held = append(held, fmt.Sprintf("the data directory %s is not empty (%s…)", dataDir, e.Name()))
			break
		}
	}
	if m.Database.Included {
		holds, what, err := store.Holds(ctx, so)
		if err != nil {
			return err
		}
		if holds {
			held = append(held, what)
		}
	}
	if len(held) > 0 && !force {
		return fmt.Errorf("not restoring over what exists: %s; restore into an empty data directory and database, or pass --force to replace them",
			strings.Join(held, "; "))
	}
	return nil
}

// extract writes one file of the archive into the staging folder.
func extract(stage string, e Entry, r io.Reader) error {
	f, err := os.OpenFile(staged(stage, e.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Sync(), f.Close())
}

// restoreDatabase puts the staged database in place and checks it holds
// the archive's point.
func restoreDatabase(ctx context.Context, so store.Options, stage string, m *Manifest, force bool) error {
	src := staged(stage, m.Database.File)
	if so.SQLitePath != "" {
		// Renamed from beside the database: the staging folder may be on
		// another file system (database_url = sqlite:///elsewhere).
		if err := os.MkdirAll(filepath.Dir(so.SQLitePath), 0o700); err != nil {
			return fmt.Errorf("making the database's folder: %w", err)
		}
		near := so.SQLitePath + ".restoring"
		if err := moveFile(src, near); err != nil {
			return err
		}
		if err := store.InstallSQLite(near, so.SQLitePath); err != nil {
			return err
		}
	} else if err := store.RestorePostgres(ctx, so.PostgresURL, src, m.Database.Schema, force, tablesIn(stage, m)); err != nil {
		return err
	}
	var got Point
	if _, err := store.Read(ctx, so, func(ctx context.Context, q bun.IDB) error { return readPoint(ctx, q, &got) }); err != nil {
		return fmt.Errorf("reading the restored database: %w", err)
	}
	if m.Point == nil || got != *m.Point {
		return fmt.Errorf("the restored database is not the backup's: it holds %+v, the manifest says %+v", got, m.Point)
	}
	return nil
}

// tablesIn is the manifest's split tables, with their staged files.
func tablesIn(stage string, m *Manifest) []store.TableCopy {
	var ts []store.TableCopy
	for _, t := range m.Database.Tables {
		t.Path = staged(stage, t.File)
		ts = append(ts, t.TableCopy)
	}
	return ts
}

// placeNodeFiles moves the node's files into dataDir/RestoredDir and says
// what to do with each.
func placeNodeFiles(dataDir, stage string, m *Manifest, o RestoreOptions) error {
	for _, e := range m.Files {
		if m.DatabaseFile(e.Name) {
			continue
		}
		dst := filepath.Join(dataDir, RestoredDir, filepath.FromSlash(e.Name))
		if _, err := os.Stat(dst); err == nil && !o.Force {
			return fmt.Errorf("%s exists: pass --force to replace it", dst)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("restoring %s: %w", e.Name, err)
		}
		if err := moveFile(staged(stage, e.Name), dst); err != nil {
			return err
		}
		use := "keep it with the node's own backups"
		for _, f := range o.Files {
			if f.Name == e.Name && f.Use != "" {
				use = f.Use
			}
		}
		fmt.Fprintf(o.Out, "%s restored to %s: %s\n", e.Name, dst, strings.ReplaceAll(use, "FILE", dst))
	}
	for _, miss := range m.Missing {
		fmt.Fprintf(o.Out, "not in the backup: %s\n", miss)
	}
	return nil
}

// moveFile renames src to dst, copying when they are on different file
// systems.
func moveFile(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("moving %s: %w", src, err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("moving to %s: %w", dst, err)
	}
	_, err = f.Write(b)
	if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("moving to %s: %w", dst, err)
	}
	return nil
}

// checkSum compares the archive with the SHA-256 in its .sha256 file
// beside it, when there is one.
func checkSum(p string) error {
	b, err := os.ReadFile(p + ".sha256")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s.sha256: %w", p, err)
	}
	want, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("opening the backup: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, bufio.NewReader(f)); err != nil {
		return fmt.Errorf("reading the backup: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return corrupt("its SHA-256 is %s, %s.sha256 says %s", got, filepath.Base(p), want)
	}
	return nil
}
