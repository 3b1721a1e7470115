package archtest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/internal/archtest"
)

// pkg is what go list tells of a package.
type pkg struct {
	ImportPath   string
	Standard     bool
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string // every package it imports, directly or not (tests aside)
	Error        *struct{ Err string }
}

// goList runs go list -json in the module folder dir (relative to the
// server's module) with extra environment and arguments.
func goList(t *testing.T, dir string, env []string, args ...string) []pkg {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", dir))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"list", "-e", "-json=ImportPath,Standard,Imports,TestImports,XTestImports,Deps,Error"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", root, err, stderr.Bytes())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list found no package in %s", root)
	}
	return pkgs
}

// platforms are the GOOS/GOARCH the SDK and the plugins are listed for:
// the host's (their native tests) and the sandbox's.
var platforms = []struct {
	name string
	env  []string
}{{"native", nil}, {"wasip1", []string{"GOOS=wasip1", "GOARCH=wasm"}}}

// TestServerLayers: core imports none of api, host, plugins, cmd; the host
// no plugin; a plugin no other plugin; a library (lib/) none of host,
// contract, plugins, api, app, cmd; and only tests import the harness and
// the test kit (testkit/: besides the kit itself and cmd/loadbench).
// What a package ships is checked with everything it imports, directly
// or not; its tests by what they import directly (they may wire a whole
// server through the harness, as cmd/hearth does for real).
func TestServerLayers(t *testing.T) {
	t.Parallel()
	pkgs := goList(t, ".", nil, "./...")
	own := map[string]bool{}
	for _, p := range pkgs {
		own[archtest.Rel(p.ImportPath)] = true
	}
	pluginOf := archtest.PluginOf(func(rel string) bool { return own[rel] })
	for _, p := range pkgs {
		from := archtest.Rel(p.ImportPath)
		check := func(imports []string, test bool) {
			for _, imp := range imports {
				to := archtest.Rel(imp)
				if to == "" || to == from {
					continue
				}
				if why := archtest.Server(from, to, test, pluginOf); why != "" {
					t.Errorf("%s imports %s: %s", from, to, why)
				}
			}
		}
		check(p.Deps, false)
		check(slices.Concat(p.TestImports, p.XTestImports), true)
	}
}

// TestSDKImportsTheStandardLibraryAlone lists the SDK with its tests'
// imports too, for the host and for the sandbox.
func TestSDKImportsTheStandardLibraryAlone(t *testing.T) {
	t.Parallel()
	for _, pf := range platforms {
		for _, p := range goList(t, "sdk", pf.env, "-deps", "-test", "./...") {
			if strings.HasSuffix(p.ImportPath, ".test") || strings.Contains(p.ImportPath, " [") {
				continue // a test binary, or a package recompiled for one: listed again by its own path
			}
			if why := archtest.SDK(p.ImportPath, p.Standard); why != "" {
				t.Errorf("%s: the SDK depends on %s: %s", pf.name, p.ImportPath, why)
			}
		}
	}
}

// TestExamplesImportTheSDKAndTheHarnessAlone: an example plugin imports,
// of the server, the SDK alone, and its tests the SDK and the harness.
func TestExamplesImportTheSDKAndTheHarnessAlone(t *testing.T) {
	t.Parallel()
	for _, pf := range platforms {
		for _, p := range goList(t, "examples", pf.env, "./...") {
			for _, imp := range p.Imports {
				if why := archtest.Example(imp, false); why != "" {
					t.Errorf("%s: %s imports %s: %s", pf.name, p.ImportPath, imp, why)
				}
			}
			for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
				if why := archtest.Example(imp, true); why != "" {
					t.Errorf("%s: the tests of %s import %s: %s", pf.name, p.ImportPath, imp, why)
				}
			}
		}
	}
}

// TestPluginsUseTheHostAPI: no plugin imports the outbox, the application
// or the API itself, nor names a service of the ledger outside its
// tests: events, deposits, resolvers and receiving into other wallets come
// through the host API, checked against the plugin's capabilities. And the
// application imports no feature's plugin.
func TestPluginsUseTheHostAPI(t *testing.T) {
	t.Parallel()
	for _, p := range goList(t, ".", nil, "./plugins/...", "./app") {
		from := archtest.Rel(p.ImportPath)
		for _, imp := range p.Imports {
			if why := archtest.Direct(from, archtest.Rel(imp)); why != "" {
				t.Errorf("%s imports %s: %s", from, archtest.Rel(imp), why)
			}
		}
	}
	root, err := filepath.Abs(filepath.Join("..", "..", "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if s := archtest.LedgerService(line); s != "" {
				t.Errorf("%s:%d names %s: a plugin reaches the ledger through the host API", path, i+1, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCoreNamesNoFeature: core, the host and the application (app itself;
// app/builtins lists the built-ins) name no plugin's feature in code: the
// Lightning Address, Nostr and webhooks live in their plugins, and core
// and the host offer what they need in general terms (invoice tags,
// capabilities, services). The host's one exception is the ABI's own
// words (archtest.ABINames): host functions that compiled plugins import
// by name.
func TestCoreNamesNoFeature(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"core", "app", "host"} {
		root, err := filepath.Abs(filepath.Join("..", "..", dir))
		if err != nil {
			t.Fatal(err)
		}
		err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "builtins" || d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || archtest.ABINames(path) {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if w := archtest.FeatureName(line); w != "" {
					t.Errorf("%s:%d names %q: a feature is its plugin's, not core's", path, i+1, w)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuiltinsGetTheirEnvironmentAlone: no built-in is handed a node or a
// database outside its environment. Outside a feature plugin's folder no
// code (tests aside) builds it from its parts (<plugin>.New, .Deps{}): its
// descriptor does, from the host.Env the registry gives it. And no feature
// plugin names the node (ledger.Node) or its spending half: it reads what
// its capabilities hand it (host.Env.NodeInfo, host.Chain).
func TestBuiltinsGetTheirEnvironmentAlone(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	features, err := archtest.FeaturePlugins(filepath.Join(root, "plugins"))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if why := archtest.Handed(filepath.ToSlash(rel), line, features); why != "" {
				t.Errorf("%s:%d: %s", rel, i+1, why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
