package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Module is the server's module path; the SDK and the examples are
// modules of their own under it.
const Module = "github.com/hearthwallet/hearth"

// The modules nested in the server's folder.
const (
	SDKModule      = Module + "/sdk"
	ExamplesModule = Module + "/examples"
)

// Harness is the test harness meant for plugin authors: the one package
// of the server (besides the SDK) that an example plugin's tests import.
const Harness = Module + "/plugintest"

// Rel returns path relative to the server's module ("core/ledger"), or ""
// for a package outside it (the standard library, another module, and
// the SDK and the examples, modules of their own).
func Rel(path string) string {
	if path == SDKModule || strings.HasPrefix(path, SDKModule+"/") ||
		path == ExamplesModule || strings.HasPrefix(path, ExamplesModule+"/") {
		return ""
	}
	r, ok := strings.CutPrefix(path, Module+"/")
	if !ok {
		return ""
	}
	return r
}

// under reports whether rel is the folder dir or inside it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// forbidden lists, for each layer of the server, the folders its packages
// may not import (directly or through others).
var forbidden = []struct {
	layer string
	not   []string
}{
	{"core", []string{"api", "host", "plugins", "cmd", "plugintest"}},
	{"host", []string{"plugins", "api", "cmd", "contract"}},
	// The services' contracts sit between the host and the plugins that
	// meet through them.
	{"contract", []string{"plugins", "api", "cmd", "app"}},
	{"plugins", []string{"api", "cmd"}},
	// The libraries are imported by any layer and import none of those
	// built on them. Core they may: bolt11 decodes into the ledger's terms
	// (ledger.DecodedInvoice, ledger.ErrUnsupportedInput) and nostrkey
	// keeps its row through the store.
	{"lib", []string{"host", "contract", "plugins", "api", "app", "cmd"}},
}

// testKit is the folder of the server's own test kit (the regtest
// networks, the node contract, Nostr's relays): only tests import it,
// besides the kit itself (make devnet's testkit/regtest/devnet) and
// kitTools.
const testKit = "testkit"

// kitTools are the commands that run the test kit's networks outside a
// test, with their own packages (a command's folder): make bench's load
// runs against real nodes (cmd/loadbench/internal/nodes).
var kitTools = []string{"cmd/loadbench"}

// Server returns why the server's package from may not import to (both
// relative to the module, see Rel), or "" when it may. plugin maps a
// package under plugins/ to the plugin it belongs to (PluginOf). test
// says whether the import is only a test's; a test may import the
// harness and the test kit, which non-test code never does (the kit
// itself and kitTools aside).
func Server(from, to string, test bool, plugin func(string) string) string {
	for _, f := range forbidden {
		if !under(from, f.layer) {
			continue
		}
		for _, n := range f.not {
			if under(to, n) {
				return fmt.Sprintf("%s may not import %s", f.layer, n)
			}
		}
	}
	if under(from, "plugins") && under(to, "plugins") && plugin(from) != plugin(to) {
		return fmt.Sprintf("a plugin (%s) may not import another plugin (%s)", plugin(from), plugin(to))
	}
	if !test && to == Rel(Harness) && !under(from, Rel(Harness)) {
		return "only tests may import the test harness " + Rel(Harness)
	}
	if !test && under(to, testKit) && !under(from, testKit) && !slices.ContainsFunc(kitTools, func(tool string) bool { return under(from, tool) }) {
		return "only tests (and the commands that run its networks, " + strings.Join(kitTools, ", ") + ") may import the test kit " + testKit
	}
	return ""
}

// PluginOf returns the plugin a package under plugins/ belongs to: the
// shortest of its folders that is a package of its own (plugins/node is
// none, so plugins/node/lnd and plugins/node/embedded are two plugins).
func PluginOf(isPackage func(string) bool) func(string) string {
	return func(rel string) string {
		parts := strings.Split(rel, "/")
		for i := 2; i <= len(parts); i++ {
			if p := strings.Join(parts[:i], "/"); isPackage(p) {
				return p
			}
		}
		return rel
	}
}

// SDK returns why the SDK may not import path, or "": it runs inside the
// sandbox, so it imports the standard library and itself alone.
func SDK(path string, standard bool) string {
	if standard || path == SDKModule || strings.HasPrefix(path, SDKModule+"/") {
		return ""
	}
	return "the SDK imports the standard library alone"
}

// Example returns why an example plugin may not import path, or "": of
// the server's packages, a plugin imports the SDK, and its tests the SDK
// and the harness.
func Example(path string, test bool) string {
	if path != Module && (!strings.HasPrefix(path, Module+"/") || Rel(path) == "") {
		return "" // not the server's: the standard library, the SDK, an example, another module
	}
	if test && path == Harness {
		return ""
	}
	if test {
		return "an example's tests import of the server the SDK and " + Harness + " alone"
	}
	return "an example plugin imports of the server the SDK alone"
}

// reachPast lists, for a layer, the folders its packages may not import
// directly, though what they import may: a plugin reaches the outbox, the
// application and the API only through the host API, which is built on
// them.
var reachPast = []struct {
	layer string
	not   []string
}{
	{"plugins", []string{"core/outbox", "app", "api"}},
}

// Direct returns why the server's package from may not import to directly
// (both relative to the module), or "" when it may. The application (app
// itself; app/builtins lists the built-ins) names no feature: of the
// plugins it imports only the embedded node, the default backend.
func Direct(from, to string) string {
	if from == "app" && under(to, "plugins") && to != "plugins/node/embedded" {
		return "app names no feature: built-ins provide their contracts to the registry"
	}
	for _, f := range reachPast {
		if !under(from, f.layer) {
			continue
		}
		for _, n := range f.not {
			if under(to, n) {
				return fmt.Sprintf("%s reaches %s through the host API only", f.layer, n)
			}
		}
	}
	return ""
}

// ledgerServices are the identifiers of core/ledger that are its services
// (what moves money), not its types: a plugin reaches them through the
// host API's capability-checked calls.
var ledgerServices = []string{"ledger.Service", "ledger.New("}

// LedgerService returns the service of core/ledger that a plugin's source
// line names in code (not in a comment), or "".
func LedgerService(line string) string {
	line, _, _ = strings.Cut(line, "//")
	for _, s := range ledgerServices {
		if strings.Contains(line, s) {
			return s
		}
	}
	return ""
}

// featureWord matches, in code, the name of a feature that is a plugin's
// (the Lightning Address's LNURL and its invoices' ln_address_id, Nostr
// and its zaps, webhooks): core and the application keep none of them.
// The records' fields that the interface specification names
// (ln_address on wallets and payments, the *:ln_address scopes) are the
// API's, not a feature's, and are not matched.
var featureWord = regexp.MustCompile(`(?i)lnurl|nostr|zap|webhook|ln_?address_?id|addressed`)

// FeatureName returns the feature's name that a Go source line of core or
// the application names in code (not in a comment), or "".
func FeatureName(line string) string {
	line, _, _ = strings.Cut(line, "//")
	return featureWord.FindString(line)
}

// ABINames reports whether path is the host's file of the ABI's own words
// (host/abinames.go): the host functions and the capability that compiled
// plugins name, which services answer. It alone of the host may name a
// feature.
func ABINames(path string) bool {
	return filepath.ToSlash(path) == "host/abinames.go" || strings.HasSuffix(filepath.ToSlash(path), "/host/abinames.go")
}

// FeaturePlugins lists the feature plugins' package names: the folders of
// dir (plugins/) that are Go packages, the node backends (plugins/node/…)
// aside.
func FeaturePlugins(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing the plugins: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "node" {
			continue
		}
		if gos, _ := filepath.Glob(filepath.Join(dir, e.Name(), "*.go")); len(gos) > 0 {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// nodeHandles are what a feature plugin's code may not name: the node and
// its spending half (a built-in reads the node through its environment).
var nodeHandles = regexp.MustCompile(`\bledger\.(Node|ChainSpender|OnchainOf)\b`)

// Handed returns why a non-test line of the server's file rel (relative to
// the module) hands a feature plugin a part outside its environment, or
// "": outside plugins/<name>/, building the plugin from its parts
// (<name>.New(…), <name>.Deps{…}); inside a feature plugin, naming the
// node.
func Handed(rel, line string, features []string) string {
	line, _, _ = strings.Cut(line, "//")
	for _, f := range features {
		if under(rel, "plugins/"+f) {
			if m := nodeHandles.FindString(line); m != "" {
				return fmt.Sprintf("the %s plugin names %s: it reads the node through its environment (host.Env)", f, m)
			}
			continue
		}
		if strings.Contains(line, f+".New(") || strings.Contains(line, f+".Deps{") {
			return fmt.Sprintf("builds the %s plugin from its parts: its descriptor builds it from its environment (%s.Descriptor)", f, f)
		}
	}
	return ""
}
