package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hearth serve` refuses a data directory that group or others may write,
// saying why, and creates a missing one 0700.
func TestServeRefusesADataDirOthersMayWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"serve"}, newSyncWriter(), []string{"HEARTH_DATA_DIR=" + dir, "HEARTH_LISTEN=127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("serve with a data directory of mode 0777: %v, want a clear refusal", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !os.IsNotExist(err) {
		t.Fatalf("the refused data directory got a database: %v", err)
	}

	missing := filepath.Join(t.TempDir(), "data")
	if err := run(context.Background(), []string{"migrate"}, newSyncWriter(), []string{"HEARTH_DATA_DIR=" + missing}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{missing, filepath.Join(missing, "hearth.db")} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", p, info.Mode().Perm(), want)
		}
	}
}
