// Package plugintest runs plugins in a real Hearth host, for tests: it
// builds plugin sources with GOOS=wasip1 (cached by source hash), and sets
// up a database, the embedded node, the ledger, the event bus, the host
// API, the registry and the wazero runtime.
//
// It is the test harness meant for plugin authors: a plugin's tests need
// import only the SDK and this package (see Each, Install, Enable,
// Configure, Get, CreateInvoice, Pay and the examples). The server's own
// tests use it too, and reach the parts through Env's fields. Like
// cmd/hearth it builds the application with app.New, on the embedded node
// (a built-in, which the host itself never imports); no package but tests
// imports it.
package plugintest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/hearthwallet/hearth/host/wasm"
)

var buildMu sync.Mutex

// Build compiles the plugin in dir (a Go main package inside a module that
// can resolve the SDK) into a wasip1 reactor and returns the module bytes.
// Builds are cached in the user cache folder by a hash of dir's module and
// the SDK's sources, so repeated runs are fast. A fresh build is also
// compiled to machine code into CompileCacheDir's cache (see precompile).
func Build(t testing.TB, dir string) []byte {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	modRoot := findModRoot(t, abs)
	h := sha256.New()
	h.Write([]byte(runtime.Version() + "\x00" + abs + "\x00"))
	hashTree(t, h, modRoot)
	for _, dir := range localReplaces(t, modRoot) { // the SDK, Hearth's own libraries
		hashTree(t, h, dir)
	}
	key := hex.EncodeToString(h.Sum(nil))[:24]
	cacheDir := filepath.Join(cacheRoot(), "wasm")
	out := filepath.Join(cacheDir, key+".wasm")
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, err := os.ReadFile(out); err == nil {
		return b
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A temporary file of its own: the test binaries of several packages
	// build the same plugin at once (buildMu is one process's), and a
	// shared name had one rename the other's build away.
	f, err := os.CreateTemp(cacheDir, key+".*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp) // gone already once renamed
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", tmp, ".")
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building plugin %s: %v\n%s", dir, err, b)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	precompile(t, b)
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	return b
}

// precompile compiles a fresh build into CompileCacheDir's cache, where
// every test runtime finds it. Compiling a plugin of a few megabytes takes
// seconds, and over a minute in a -race binary on a busy machine: done here,
// before a test's clock starts, instead of inside the first install, which
// a browser test gives 90 seconds. (A clean clone builds fresh modules: the
// build path is part of their bytes.) Check's verdict is left to the test:
// some test plugins are built to be refused, after compiling.
func precompile(t testing.TB, b []byte) {
	rt, err := wasm.New(wasm.Options{CacheDir: CompileCacheDir(), MaxRunning: 1, NormalPriority: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background()) //nolint:errcheck // nothing of the cache's is lost
	_ = rt.Check(context.Background(), b)
}

// CompileCacheDir is where tests keep wazero's compiled modules.
func CompileCacheDir() string { return filepath.Join(cacheRoot(), "wazero") }

func cacheRoot() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "hearth-test")
	}
	return filepath.Join(os.TempDir(), "hearth-test")
}

func findModRoot(t testing.TB, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// localReplaces are the folders the module at modRoot replaces modules
// with (`replace … => ../sdk`): their sources go into its build too. A
// module that takes the SDK from the module cache has none: its go.sum
// names what it builds with.
func localReplaces(t testing.TB, modRoot string) []string {
	data, err := os.ReadFile(filepath.Join(modRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, r := range f.Replace {
		if r.New.Version == "" && (strings.HasPrefix(r.New.Path, "./") || strings.HasPrefix(r.New.Path, "../")) {
			dirs = append(dirs, filepath.Join(modRoot, r.New.Path))
		}
	}
	return dirs
}

// builtFrom reports whether a file at path may go into a module: Go
// sources, the module's files, and what a //go:embed may embed (a
// plugin's page, its script and style, a manifest).
func builtFrom(path string) bool {
	switch filepath.Ext(path) {
	case ".go", ".mod", ".sum", ".js", ".css", ".html", ".json", ".svg", ".txt":
		return true
	}
	return false
}

func hashTree(t testing.TB, h interface{ Write([]byte) (int, error) }, root string) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == ".git" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if builtFrom(path) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(f + "\x00"))
		h.Write(b)
	}
}
