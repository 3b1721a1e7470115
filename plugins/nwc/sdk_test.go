package nwc_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/testkit/nostrtest"
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

// sdkModules is a directory holding the SDK's node_modules
// (nostrtest.AlbySDK) and the app's script.
func sdkModules(t *testing.T) string {
	t.Helper()
	dir := nostrtest.AlbySDK(t)
	b, err := os.ReadFile(filepath.Join("testdata", "sdk", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), b, 0o644); err != nil {
		t.Fatal(err)
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
