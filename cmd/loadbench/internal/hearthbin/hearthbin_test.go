package hearthbin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// script writes an executable shell script of body and returns it as a
// build (Make takes an executable file as it is).
func script(t *testing.T, body string) Build {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hearth")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := Make(context.Background(), "A", path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Bin != path || b.Name != path || b.temp != "" {
		t.Fatalf("a binary made into %+v, want it as it is", b)
	}
	return b
}

// TestStartAndStop: the server is up once it logs where it listens, with
// its build's variables and a data directory of its own; Pause and
// Resume leave it running; Stop ends it and removes the directory.
func TestStartAndStop(t *testing.T) {
	b := script(t, `echo "starting $1 in $HEARTH_DATA_DIR on $HEARTH_LISTEN"
echo "time=x level=INFO msg=\"hearth listening\" address=http://127.0.0.1:4321 flavour=$FLAVOUR"
exec sleep 60
`)
	b.Env = []string{"FLAVOUR=mint"}
	s, err := Start(context.Background(), b, "sqlite", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Base() != "http://127.0.0.1:4321" {
		t.Errorf("base %q", s.Base())
	}
	if !strings.Contains(s.Log(), "starting serve in "+s.dataDir+" on 127.0.0.1:0") || !strings.Contains(s.Log(), "flavour=mint") {
		t.Errorf("log %q: not serve on a loopback port in its data directory, with its build's variable", s.Log())
	}
	s.Pause()
	s.Resume()
	if s.Label() != "A" {
		t.Errorf("label %q", s.Label())
	}
	began := time.Now()
	s.Stop()
	if time.Since(began) > 20*time.Second {
		t.Errorf("stopping took %v", time.Since(began))
	}
	select {
	case <-s.exited:
	default:
		t.Error("the process still runs")
	}
	if _, err := os.Stat(s.dataDir); !os.IsNotExist(err) {
		t.Errorf("the data directory is still there: %v", err)
	}
}

// TestStartFails: a binary that exits before it listens is an error that
// shows its last words, and leaves nothing behind.
func TestStartFails(t *testing.T) {
	b := script(t, "echo 'config: metrics.listen: nonsense'\nexit 1\n")
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "hearth-ab-data-*"))
	_, err := Start(context.Background(), b, "sqlite", "", 0)
	if err == nil || !strings.Contains(err.Error(), "exited before listening") || !strings.Contains(err.Error(), "metrics.listen: nonsense") {
		t.Fatalf("err %v, want its exit with its log", err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "hearth-ab-data-*"))
	if len(after) > len(before) {
		t.Errorf("data directories left: %v, before %v", after, before)
	}
}

// TestKept: a server on kept books leaves its data directory.
func TestKept(t *testing.T) {
	b := script(t, "echo 'msg=\"hearth listening\" address=http://127.0.0.1:1'\nexec sleep 60\n")
	dir := t.TempDir()
	s, err := Kept(context.Background(), b, dir, "", os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the kept directory: %v", err)
	}
}

// TestMakeRefuses a spec that is neither a file nor a revision.
func TestMakeRefuses(t *testing.T) {
	_, err := Make(context.Background(), "A", "no-such-revision-or-file")
	if err == nil || !strings.Contains(err.Error(), "neither a file nor a git revision") {
		t.Errorf("err %v", err)
	}
}

func TestFreshDatabaseNeedsAURL(t *testing.T) {
	if _, _, err := FreshDatabase(context.Background(), "", "x"); err == nil || !strings.Contains(err.Error(), "no PostgreSQL URL") {
		t.Errorf("err %v", err)
	}
}

// TestTail keeps the end of what is written: past 8 KiB it drops all but
// the last 4, so it holds 4 to 8 KiB once that much came.
func TestTail(t *testing.T) {
	var tl tail
	tl.Write([]byte("first\n"))
	if tl.String() != "first\n" {
		t.Errorf("tail %q", tl.String())
	}
	for i := range 9 {
		tl.Write([]byte(strings.Repeat(string(rune('a'+i)), 1024)))
	}
	// 6 + 8×1024 bytes went past 8 KiB: the last 4 KiB ("e" to "h") stayed,
	// and "i" came after them.
	got := tl.String()
	if got != strings.Repeat("e", 1024)+strings.Repeat("f", 1024)+strings.Repeat("g", 1024)+strings.Repeat("h", 1024)+strings.Repeat("i", 1024) {
		t.Errorf("tail of %d bytes, ending %q", len(got), got[len(got)-8:])
	}
}
