package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/app/backup"
)

// On Core Lightning a backup holds lightningd's emergency.recover, read
// from beside its socket, and a restore gives it back; one that Hearth
// cannot read is named in the manifest and the backup still written.
func TestCLNBackupHoldsEmergencyRecover(t *testing.T) {
	t.Parallel()
	net := clnNetwork.Get(t)
	environ := clnServeEnv(t, net)
	recover := filepath.Join(filepath.Dir(net.Hearth.RPCPath()), "emergency.recover")
	want, err := os.ReadFile(recover)
	if err != nil {
		t.Fatalf("lightningd's emergency.recover: %v", err)
	}
	runHearth(t, environ, "migrate") // an instance, with its database
	archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
	if out := runHearth(t, environ, "backup", "--to", archive); !strings.Contains(out, "file: cln/emergency.recover") {
		t.Fatalf("hearth backup said:\n%s", out)
	}
	m, err := backup.Verify(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	if e, ok := entryOf(m, "cln/emergency.recover"); !ok || e.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("the archive's emergency.recover: %+v", m.Files)
	}
	restoredDir := filepath.Join(t.TempDir(), "data")
	runHearth(t, append(environ, "HEARTH_DATA_DIR="+restoredDir), "restore", "--from", archive)
	if got, err := os.ReadFile(filepath.Join(restoredDir, backup.RestoredDir, "cln", "emergency.recover")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("restored emergency.recover: %v", err)
	}

	missing := filepath.Join(t.TempDir(), "emergency.recover")
	out := runHearth(t, append(environ, "HEARTH_NODE_CLN_EMERGENCY_RECOVER="+missing), "backup", "--to", archive)
	if !strings.Contains(out, "not in the backup: cln/emergency.recover") {
		t.Fatalf("hearth backup without emergency.recover said:\n%s", out)
	}
}
