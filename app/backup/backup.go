package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
)

// File is a file of the node that a backup holds beside the database
// (built-ins name theirs: app.Builtin.BackupFiles).
type File struct {
	// Name is its path in the archive, e.g. "lnd/channel.backup".
	Name string
	// Path is where it is on this machine.
	Path string
	// Use says what to do with it after a restore; the restore prints it
	// with the restored file's path.
	Use string
}

// Options say what to back up.
type Options struct {
	Config config.Config
	// Files are the node's files to hold (a missing or unreadable one is
	// recorded in the manifest's missing list, and logged).
	Files []File
	// WithoutDatabase leaves the database out: for PostgreSQL backed up
	// otherwise (pg_dump not available here).
	WithoutDatabase bool
	// HearthVersion is the version of the Hearth that writes it.
	HearthVersion string
	Log           *slog.Logger

	between func(ctx context.Context) error // store.Split.Between, for tests
}

// Result says what Write wrote.
type Result struct {
	Path     string
	SHA256   string // of the whole archive, also in Path + ".sha256"
	Size     int64
	Took     time.Duration
	Manifest *Manifest
	// Rested is how long the copy of PostgreSQL gave way to a busy
	// database (store.Split).
	Rested time.Duration
}

// Write writes a backup of the instance o describes to the archive at to,
// which it replaces only once the archive is whole (written beside it,
// synced, then renamed), with its SHA-256 in to + ".sha256" in the form
// `sha256sum -c` reads. The server may be running; nothing of its is
// changed. The backup's own work runs at a lower priority than the
// server's (inBackground), and its copy of PostgreSQL's settled history
// rests while the database is busy (store.Split).
func Write(ctx context.Context, to string, o Options) (res Result, err error) {
	err = inBackground(func() error {
		res, err = write(ctx, to, o)
		return err
	})
	return res, err
}

// write is Write, on the caller's thread.
func write(ctx context.Context, to string, o Options) (_ Result, err error) {
	began := time.Now()
	if o.Log == nil {
		o.Log = slog.Default()
	}
	dir, err := os.MkdirTemp(filepath.Dir(to), ".hearth-backup-")
	if err != nil {
		return Result{}, fmt.Errorf("making the staging folder: %w", err)
	}
	defer os.RemoveAll(dir)
	m := &Manifest{Format: Format, Version: formatWhole, CreatedAt: time.Now().UTC().Truncate(time.Second),
		HearthVersion: o.HearthVersion, NodeBackend: o.Config.Node.Backend, Secrets: Secrets}
	rested, err := stageDatabase(ctx, o, dir, m)
	if err != nil {
		return Result{}, err
	}
	for _, f := range o.Files {
		if err := stageFile(f, dir, m); err != nil {
			m.Missing = append(m.Missing, fmt.Sprintf("%s: %v", f.Name, err))
			o.Log.Warn("a node file is not in the backup", "file", f.Name, "path", f.Path, "err", err)
		}
	}
	res := Result{Path: to, Manifest: m, Rested: rested}
	if res.Size, res.SHA256, err = writeFile(to, func(w io.Writer) error { return writeArchive(w, m, dir) }); err != nil {
		return Result{}, err
	}
	sum := []byte(res.SHA256 + "  " + filepath.Base(to) + "\n")
	if _, _, err := writeFile(to+".sha256", func(w io.Writer) error { _, err := w.Write(sum); return err }); err != nil {
		return Result{}, err
	}
	res.Took = time.Since(began)
	return res, nil
}

// stageDatabase copies the database into dir, records it and the
// backup's point in m, and says how long the copy gave way to others.
func stageDatabase(ctx context.Context, o Options, dir string, m *Manifest) (rested time.Duration, err error) {
	so := store.Options{SQLitePath: o.Config.SQLitePath()}
	m.Database = Database{Kind: string(store.SQLite), File: sqliteName}
	if so.SQLitePath == "" {
		so.PostgresURL = o.Config.DatabaseURL
		m.Database = Database{Kind: string(store.Postgres), File: postgresName}
	}
	if o.WithoutDatabase {
		m.Database.File = ""
		m.Database.Note = "left out (--without-database): restore the database from its own backup"
		return 0, nil
	}
	point := new(Point)
	c, err := store.CopyTo(ctx, so, staged(dir, m.Database.File), func(ctx context.Context, q bun.IDB) error {
		return readPoint(ctx, q, point)
	}, store.Split{Tables: ledgerSplit, Chunk: splitChunk, Between: o.between})
	if errors.Is(err, store.ErrNoPgDump) {
		return 0, fmt.Errorf("%w; or back PostgreSQL up yourself (pg_dump --format=custom) and run hearth backup --without-database for the rest", err)
	}
	if err != nil {
		return 0, fmt.Errorf("copying the database: %w", err)
	}
	m.Database.Included, m.Database.Schema, m.Database.SchemaVersion, m.Point = true, c.Schema, c.Version, point
	for _, t := range c.Tables {
		o.Log.Info("a table's settled rows were copied after the snapshot", "table", t.Name, "rows", t.Rows, "resting while the database was busy", c.Rested.Round(time.Millisecond))
		f := TableFile{File: filepath.Base(t.Path), TableCopy: t}
		m.Database.Tables, m.Version = append(m.Database.Tables, f), FormatVersion
		if err := addEntry(m, dir, f.File); err != nil {
			return 0, err
		}
	}
	return c.Rested, addEntry(m, dir, m.Database.File)
}

// stageFile copies the node's file f into dir.
func stageFile(f File, dir string, m *Manifest) error {
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(staged(dir, f.Name), b, 0o600); err != nil {
		return err
	}
	return addEntry(m, dir, f.Name)
}

// addEntry lists the staged file name in m with its size and SHA-256.
func addEntry(m *Manifest, dir, name string) error {
	size, sum, err := hashFile(staged(dir, name))
	if err != nil {
		return fmt.Errorf("hashing %s: %w", name, err)
	}
	m.Files = append(m.Files, Entry{Name: name, Size: size, SHA256: sum})
	return nil
}

// writeFile writes what write writes to a new file beside p, 0600, syncs
// it and renames it to p; it returns its size and SHA-256.
func writeFile(p string, write func(io.Writer) error) (int64, string, error) {
	f, err := os.CreateTemp(filepath.Dir(p), ".hearth-backup-*.part")
	if err != nil {
		return 0, "", fmt.Errorf("writing %s: %w", p, err)
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing left to remove
	h := sha256.New()
	counted := &countingWriter{w: io.MultiWriter(&syncingFile{f: f}, h)}
	err = write(counted)
	err = errors.Join(err, f.Chmod(0o600), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		return 0, "", fmt.Errorf("writing %s: %w", p, err)
	}
	return counted.n, hex.EncodeToString(h.Sum(nil)), syncDir(filepath.Dir(p))
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// syncEvery is how much of an archive is written between two syncs.
const syncEvery = 32 << 20

// syncingFile writes to f and syncs it every syncEvery bytes: gigabytes
// left dirty in the page cache would be written back all at once, and a
// server's commits syncing its database's log on the same disk would wait
// behind them.
type syncingFile struct {
	f     *os.File
	since int
}

func (s *syncingFile) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if s.since += n; err == nil && s.since >= syncEvery {
		s.since, err = 0, s.f.Sync()
	}
	return n, err
}

// syncDir syncs a folder, so that a rename in it survives a power cut.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
