package builtins_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
)

// Each built-in declares exactly the powers it uses: what it took from its
// environment and what it serves and shows (host.Plugin.Powers), and the
// host calls its source makes (host.CapabilityCalls). A power used and not
// declared fails the built-in's build or its call; one declared and never
// used is a power held for nothing.
func TestEveryBuiltinUsesWhatItDeclares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, err := app.New(ctx, config.Default(), storetest.SQLite(t),
		app.Options{Builtins: append([]app.Builtin{app.EmbeddedNode()}, builtins.Features()...), NoWasm: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, d := range builtins.Descriptors() {
		p, err := a.Registry.Get(d.Manifest.Name)
		if err != nil {
			t.Fatal(err)
		}
		used := p.Powers()
		for _, c := range sourceCalls(t, folderOf(t, d)) {
			if !slices.Contains(used, c) {
				used = append(used, c)
			}
		}
		for _, c := range d.Manifest.DeclaredCapabilities() {
			if !slices.Contains(used, c) {
				t.Errorf("%s declares %s and never uses it (it uses %v)", p.Name, c, used)
			}
		}
		for _, u := range used {
			if u != "tables" && !slices.Contains(d.Manifest.Scopes, u) {
				t.Errorf("%s uses %s without declaring it", p.Name, u)
			}
		}
	}
}

// folderOf is the folder of the built-in d describes: plugins/<name>,
// as every feature built-in's is.
func folderOf(t *testing.T, d host.Descriptor) string {
	t.Helper()
	return filepath.Join("..", "..", "plugins", d.Manifest.Name)
}

// sourceCalls are the capabilities whose host calls the non-test Go source
// of folder makes, comments aside.
func sourceCalls(t *testing.T, folder string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(folder, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no source in %s: %v", folder, err)
	}
	var code strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "//")
			code.WriteString(line + "\n")
		}
	}
	var out []string
	for c, calls := range host.CapabilityCalls {
		for _, call := range calls {
			if strings.Contains(code.String(), "."+call+"(") {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
