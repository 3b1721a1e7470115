package backup_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// source is an instance to back up: its configuration, with two wallets
// in its database, and a node file.
type source struct {
	cfg   config.Config
	files []backup.File
	scb   []byte // the node file's content
}

// newSource fills db, which cfg names, and makes a node file.
func newSource(t *testing.T, db *store.DB, cfg config.Config) source {
	t.Helper()
	for i, msat := range []int64{7_000, 0} {
		if _, err := db.W.ExecContext(context.Background(),
			"INSERT INTO wallets (id, user_id, available_msat, received_msat, created_at) VALUES (?, ?, ?, ?, ?)",
			fmt.Sprintf("w%d", i), fmt.Sprintf("u%d", i), msat, msat, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
	}
	s := source{cfg: cfg, scb: []byte("a channel backup\x00\x01")}
	scb := filepath.Join(t.TempDir(), "channel.backup")
	if err := os.WriteFile(scb, s.scb, 0o600); err != nil {
		t.Fatal(err)
	}
	s.files = []backup.File{
		{Name: "lnd/channel.backup", Path: scb, Use: "lncli restorechanbackup --multi_file FILE"},
		{Name: "cln/emergency.recover", Path: filepath.Join(t.TempDir(), "nope")},
	}
	return s
}

// sqliteSource is a source on a new SQLite data directory.
func sqliteSource(t *testing.T) source {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	db, err := store.Open(context.Background(), store.Options{SQLitePath: cfg.SQLitePath()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return newSource(t, db, cfg)
}

// write backs s up into a new folder.
func (s source) write(t *testing.T) (string, backup.Result) {
	t.Helper()
	to := filepath.Join(t.TempDir(), "hearth.tar.gz")
	res, err := backup.Write(context.Background(), to, backup.Options{Config: s.cfg, Files: s.files, HearthVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return to, res
}

// Backed up on each database and restored into an empty one: the
// manifest tells what it holds, the .sha256 file reads as sha256sum
// writes it, the database and the node file come back, a second restore
// is refused until forced.
func TestWriteThenRestore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		cfg := config.Default()
		cfg.DataDir = t.TempDir()
		target := config.Default()
		target.DataDir = filepath.Join(t.TempDir(), "data")
		if db.Dialect == store.Postgres {
			var schema string
			if err := db.R.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL = os.Getenv(storetest.PostgresEnv) + "&search_path=" + schema
			target.DatabaseURL = storetest.EmptyDatabaseURL(t, schema)
		} else {
			src, err := store.Open(ctx, store.Options{SQLitePath: cfg.SQLitePath()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { src.Close() })
			if err := src.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			db = src
		}
		s := newSource(t, db, cfg)
		to, res := s.write(t)
		m := res.Manifest
		if !m.Database.Included || m.Database.Kind != string(db.Dialect) || m.Point.Wallets != 2 || m.Point.AvailableMsat != 7_000 ||
			len(m.Files) != 2+len(m.Database.Tables) || len(m.Missing) != 1 || !strings.HasPrefix(m.Missing[0], "cln/emergency.recover") {
			t.Fatalf("manifest %+v, point %+v", m, m.Point)
		}
		if split := db.Dialect == store.Postgres; (len(m.Database.Tables) == 2) != split || (m.Version == 2) != split {
			t.Fatalf("manifest version %d with tables %+v: on PostgreSQL the ledger's two are split (version 2)", m.Version, m.Database.Tables)
		}
		b, err := os.ReadFile(to)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if side, _ := os.ReadFile(to + ".sha256"); string(side) != hex.EncodeToString(sum[:])+"  hearth.tar.gz\n" || res.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf(".sha256 = %q, result %s, file %x", side, res.SHA256, sum)
		}

		var out bytes.Buffer
		if _, err := backup.Restore(ctx, to, backup.RestoreOptions{Config: target, Files: s.files, Out: &out}); err != nil {
			t.Fatal(err)
		}
		restored := filepath.Join(target.DataDir, backup.RestoredDir, "lnd", "channel.backup")
		if got, err := os.ReadFile(restored); err != nil || !bytes.Equal(got, s.scb) {
			t.Fatalf("restored channel backup %q, %v", got, err)
		}
		if !strings.Contains(out.String(), "lncli restorechanbackup --multi_file "+restored) {
			t.Fatalf("restore said:\n%s", out.String())
		}
		_, err = backup.Restore(ctx, to, backup.RestoreOptions{Config: target})
		if err == nil || !strings.Contains(err.Error(), "not restoring over what exists") {
			t.Fatalf("a restore over a restored instance: %v", err)
		}
		if _, err := backup.Restore(ctx, to, backup.RestoreOptions{Config: target, Force: true}); err != nil {
			t.Fatalf("forced: %v", err)
		}
	})
}

// A damaged archive is refused before anything is written, whatever the
// damage, and says so; so is an archive of another kind of database.
func TestRestoreRefusesDamagedArchives(t *testing.T) {
	t.Parallel()
	s := sqliteSource(t)
	to, _ := s.write(t)
	whole, err := os.ReadFile(to)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(whole)
	flipped[len(flipped)/2] ^= 0x40
	for _, tc := range []struct {
		name    string
		archive []byte
		sum     bool // keep the .sha256 file of the whole archive beside it
	}{
		{"truncated", whole[:len(whole)*2/3], false},
		{"cut at the end", whole[:len(whole)-4], false},
		{"a bit flipped", flipped, false},
		{"garbage after it", append(bytes.Clone(whole), "more"...), false},
		{"not gzip", []byte("hello"), false},
		{"whole but the .sha256 disagrees", append(bytes.Clone(whole[:0:0]), whole...), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "b.tar.gz")
			if err := os.WriteFile(p, tc.archive, 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.sum {
				if err := os.WriteFile(p+".sha256", []byte(strings.Repeat("0", 64)+"  b.tar.gz\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			target := config.Default()
			target.DataDir = filepath.Join(dir, "data")
			_, err := backup.Restore(context.Background(), p, backup.RestoreOptions{Config: target})
			if !errors.Is(err, backup.ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if _, err := os.Stat(target.DataDir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the data directory was made: %v", err)
			}
		})
	}
	pg := config.Default()
	pg.DataDir, pg.DatabaseURL = filepath.Join(t.TempDir(), "data"), "postgres://nobody@127.0.0.1:1/none"
	if _, err := backup.Restore(context.Background(), to, backup.RestoreOptions{Config: pg}); err == nil || !strings.Contains(err.Error(), "sqlite database") {
		t.Fatalf("a SQLite backup into PostgreSQL: %v", err)
	}
}

// Scheduled backups come every period into their folder, and only the
// newest backup.keep of them stay, each with its .sha256 file, each whole.
func TestScheduleKeepsTheNewest(t *testing.T) {
	t.Parallel()
	s := sqliteSource(t)
	s.cfg.Backup = config.Backup{Every: config.Duration{Duration: 10 * time.Millisecond}, Dir: t.TempDir(), Keep: 2}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	log := newLineLog()
	go func() {
		defer close(done)
		backup.Schedule(ctx, backup.Options{Config: s.cfg, Files: s.files, Log: slog.New(slog.NewTextHandler(log, nil))})
	}()
	for strings.Count(log.String(), "scheduled backup written") < 4 {
		select {
		case <-log.changed:
		case <-time.After(2 * time.Minute):
			t.Fatalf("4 scheduled backups not written in 2 minutes; log:\n%s", log)
		}
	}
	cancel()
	<-done
	entries, err := os.ReadDir(s.cfg.Backup.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 4 {
		t.Fatalf("the folder holds %v, want 2 backups and their .sha256 files", names)
	}
	for _, n := range names {
		if strings.HasSuffix(n, ".tar.gz") {
			if _, err := backup.Verify(filepath.Join(s.cfg.Backup.Dir, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// lineLog is a log destination a test can wait on: changed gets a token
// after each line.
type lineLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{}, 1)} }

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return l.buf.Write(p)
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
