package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// `hearth serve` with backup.every set writes a backup at once into
// backup.dir when it holds none, on each database.
func TestServeSchedulesBackups(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, environ []string) {
		dir := t.TempDir()
		p, _ := serveProcess(t, append(environ, "HEARTH_BACKUP_EVERY=1h", "HEARTH_BACKUP_DIR="+dir))
		m := p.waitFor(regexp.MustCompile(`msg="scheduled backup written" to=(\S+)`))
		if filepath.Dir(m[1]) != dir {
			t.Fatalf("backup written to %s, want it in %s", m[1], dir)
		}
		if _, err := backup.Verify(m[1]); err != nil {
			t.Fatal(err)
		}
	})
}

// On PostgreSQL without pg_dump on the PATH, `hearth backup` fails saying
// what to install, or, told --without-database, writes the rest and says
// the database is not in it; its restore says so too.
func TestBackupWithoutPgDump(t *testing.T) {
	t.Parallel()
	environ := []string{"HEARTH_DATA_DIR=" + t.TempDir(), "HEARTH_DATABASE_URL=" + storetest.EmptySchemaURL(t), "PATH=" + t.TempDir()}
	runHearth(t, environ, "migrate")
	archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
	if out := failHearth(t, environ, "backup", "--to", archive); !strings.Contains(out, "pg_dump, pg_restore or psql is not on the PATH") ||
		!strings.Contains(out, "--without-database") {
		t.Fatalf("hearth backup without pg_dump said:\n%s", out)
	}
	if out := runHearth(t, environ, "backup", "--to", archive, "--without-database"); !strings.Contains(out, "database: not in the backup") {
		t.Fatalf("hearth backup --without-database said:\n%s", out)
	}
	m, err := backup.Verify(archive)
	if err != nil || m.Database.Included || m.Point != nil || len(m.Files) != 0 {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	target := []string{"HEARTH_DATA_DIR=" + filepath.Join(t.TempDir(), "data"), "HEARTH_DATABASE_URL=" + storetest.EmptySchemaURL(t)}
	if out := runHearth(t, target, "restore", "--from", archive); !strings.Contains(out, "The backup holds no database") {
		t.Fatalf("hearth restore said:\n%s", out)
	}
}
