package nwc_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sdkApp is testdata/sdk/client.mjs, an app written with @getalby/sdk
// (pinned in its package-lock.json), run by node.
type sdkApp struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines *bufio.Scanner
	out   io.ReadCloser
}

// sdkStep is one line the app writes.
type sdkStep struct {
	Step  string          `json:"step"`
	Value json.RawMessage `json:"value"`
	Code  string          `json:"code"`
}

// sdkModules is a directory holding the SDK's node_modules (npm ci of
// testdata/sdk's lock file, once per lock file, in the user's cache) and
// the app's script. Without node and npm the test is skipped, unless CI
// is set.
func sdkModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed for the tests through @getalby/sdk: %v", tool, err)
			}
			t.Skipf("%s not found: the tests through @getalby/sdk are skipped", tool)
		}
	}
	lock, err := os.ReadFile("testdata/sdk/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "hearth", "nwc-sdk", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata/sdk", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@getalby", "sdk", "package.json")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci of testdata/sdk: %v\n%s", err, out)
		}
	}
	return dir
}

// runSDK starts the app with args.
func runSDK(t *testing.T, args map[string]any) *sdkApp {
	t.Helper()
	dir := sdkModules(t)
	b, _ := json.Marshal(args)
	var flags []string
	if nodeMajor(t) < 22 { // Node 20 has WebSocket behind a flag
		flags = append(flags, "--experimental-websocket")
	}
	cmd := exec.Command("node", append(flags, "client.mjs", string(b))...)
	cmd.Dir = dir
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &sdkApp{t: t, cmd: cmd, lines: bufio.NewScanner(out), out: out}
	a.lines.Buffer(make([]byte, 1<<20), 1<<20)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return a
}

// next is the app's next step, which must be want; an error fails the
// test.
func (a *sdkApp) next(want string, v any) {
	a.t.Helper()
	for {
		done := make(chan bool, 1)
		go func() { done <- a.lines.Scan() }()
		select {
		case ok := <-done:
			if !ok {
				a.t.Fatalf("the SDK app ended before %s", want)
			}
		case <-time.After(90 * time.Second):
			a.t.Fatalf("the SDK app said nothing of %s", want)
		}
		if strings.HasPrefix(a.lines.Text(), "{") {
			break
		}
		a.t.Logf("sdk app: %s", a.lines.Text()) // nostr-tools logs a relay's NOTICE to stdout
	}
	var s sdkStep
	if err := json.Unmarshal(a.lines.Bytes(), &s); err != nil {
		a.t.Fatalf("the SDK app wrote %q", a.lines.Text())
	}
	if s.Step != want {
		a.t.Fatalf("the SDK app: %s %s (%s), expected %s", s.Step, s.Value, s.Code, want)
	}
	if v != nil {
		if err := json.Unmarshal(s.Value, v); err != nil {
			a.t.Fatalf("the SDK app's %s: %s: %v", want, s.Value, err)
		}
	}
}

func nodeMajor(t *testing.T) int {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	n, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return n
}

// testWriter logs what the app writes to stderr.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(b []byte) (int, error) {
	w.t.Logf("sdk app: %s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
