package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hearth restore` exits 1 with a clear message, having written nothing,
// for a truncated archive; and refuses a data directory that holds an
// instance until told --force.
func TestRestoreRefusesOverProcess(t *testing.T) {
	t.Parallel()
	source := []string{"HEARTH_DATA_DIR=" + t.TempDir()}
	runHearth(t, source, "migrate")
	archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
	runHearth(t, source, "backup", "--to", archive)
	whole, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.tar.gz")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	target := []string{"HEARTH_DATA_DIR=" + dataDir}
	if out := failHearth(t, target, "restore", "--from", cut); !strings.Contains(out, "the backup archive is truncated or corrupted") {
		t.Fatalf("hearth restore of a truncated archive said:\n%s", out)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the data directory was made: %v", err)
	}
	runHearth(t, target, "restore", "--from", archive)
	if out := failHearth(t, target, "restore", "--from", archive); !strings.Contains(out, "pass --force") {
		t.Fatalf("hearth restore over an instance said:\n%s", out)
	}
	runHearth(t, target, "restore", "--from", archive, "--force")
}
