package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The [backup] section: off by default, from the file then HEARTH_BACKUP_*,
// its folder under the data directory unless set, and its limits checked.
func TestBackupSection(t *testing.T) {
	t.Parallel()
	c, err := Load("", []string{"HEARTH_DATA_DIR=/srv/hearth"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Backup.Every.Duration != 0 || c.Backup.Keep != 7 || c.BackupDir() != filepath.Join("/srv/hearth", "backups") {
		t.Fatalf("defaults: %+v, dir %s", c.Backup, c.BackupDir())
	}
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("[backup]\nevery = \"6h\"\ndir = \"/mnt/b\"\nkeep = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(path, []string{"HEARTH_BACKUP_EVERY=1h", "HEARTH_BACKUP_KEEP=10"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Backup.Every.Duration != time.Hour || c.Backup.Keep != 10 || c.BackupDir() != "/mnt/b" {
		t.Fatalf("file then env: %+v", c.Backup)
	}
	for _, tc := range []struct{ env, want string }{
		{"HEARTH_BACKUP_EVERY=30s", "backup.every"},
		{"HEARTH_BACKUP_EVERY=daily", "HEARTH_BACKUP_EVERY"},
		{"HEARTH_BACKUP_KEEP=0", "backup.keep"},
	} {
		if _, err := Load("", []string{tc.env}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %s", tc.env, err, tc.want)
		}
	}
}
