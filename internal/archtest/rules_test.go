package archtest_test

import (
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/internal/archtest"
)

// TestRules checks the rules on imports that bend the layering, and on
// some that do not, so that the architecture tests cannot pass by
// checking nothing.
func TestRules(t *testing.T) {
	t.Parallel()
	packages := map[string]bool{"plugins/node/lnd": true, "plugins/node/embedded": true, "plugins/lnurl": true}
	pluginOf := archtest.PluginOf(func(rel string) bool { return packages[rel] })
	for _, c := range []struct {
		from, to string
		test, ok bool
	}{
		{"core/ledger", "core/store", false, true},
		{"core/ledger", "host", false, false},
		{"core/auth", "api", true, false},
		{"core/wallet", "plugins/node/embedded", false, false},
		{"core/store", "cmd/hearth", false, false},
		{"host", "core/ledger", false, true},
		{"host/wasm", "plugins/node/embedded", false, false},
		{"host/wasm", "plugins/node/embedded", true, false},
		{"host/wasm", "plugintest", true, true},
		{"host", "plugintest", false, false},
		{"plugins/node/lnd", "plugins/node/embedded", false, false},
		{"plugins/node/lnd", "plugins/node/lnd/lndrpc", false, true},
		{"plugins/lnurl", "plugins/node/lnd", true, false},
		{"plugins/node/embedded", "host", false, true},
		{"plugintest", "plugins/node/embedded", false, true},
		{"cmd/hearth", "plugins/node/lnd", false, true},
		{"api", "plugintest", false, false},
		{"lib/bolt11", "core/ledger", false, true},
		{"lib/nostrkey", "core/store", false, true},
		{"lib/metrics", "host", false, false},
		{"lib/metrics", "contract", false, false},
		{"lib/nostrkey", "plugins/nostr", false, false},
		{"lib/poll", "api", true, false},
		{"lib/metrics", "app", false, false},
		{"lib/bolt11", "cmd/hearth", false, false},
		{"core/ledger", "lib/metrics", false, true},
		{"host", "lib/metrics", false, true},
		{"plugins/node/lnd", "lib/bolt11", false, true},
		{"plugins/node/lnd", "testkit/nodecontract", true, true},
		{"plugins/node/lnd", "testkit/nodecontract", false, false},
		{"cmd/hearth", "testkit/regtest", true, true},
		{"cmd/hearth", "testkit/regtest", false, false},
		{"cmd/loadbench", "testkit/regtest", false, true},
		{"cmd/loadbench/internal/nodes", "testkit/regtest", false, true},
		{"cmd/loadbenchx", "testkit/regtest", false, false},
		{"testkit/regtest/devnet", "testkit/regtest", false, true},
		{"testkit/nodecontract", "testkit/ledgertest", false, true},
		{"plugintest", "testkit/logtest", false, false},
		{"lib/poll", "testkit/logtest", false, false},
		{"host", "testkit/logtest", true, true},
	} {
		why := archtest.Server(c.from, c.to, c.test, pluginOf)
		if (why == "") != c.ok {
			t.Errorf("%s → %s (test %v): %q, want allowed %v", c.from, c.to, c.test, why, c.ok)
		}
	}
	if archtest.SDK("net/http", true) != "" || archtest.SDK(archtest.SDKModule+"/sdktest", false) != "" {
		t.Error("the SDK may import the standard library and itself")
	}
	if archtest.SDK("github.com/tetratelabs/wazero", false) == "" || archtest.SDK(archtest.Module+"/core/ledger", false) == "" {
		t.Error("the SDK may import nothing else")
	}
	for _, c := range []struct {
		path     string
		test, ok bool
	}{
		{archtest.SDKModule, false, true},
		{archtest.SDKModule + "/sdktest", true, true},
		{archtest.Harness, true, true},
		{archtest.Harness, false, false},
		{archtest.Module + "/core/store/storetest", true, false},
		{archtest.Module + "/host", true, false},
		{archtest.Module + "/lib/bolt11", false, false},
		{archtest.Module + "/testkit/nostrtest", true, false},
		{archtest.ExamplesModule + "/webhook", true, true},
		{"encoding/json", false, true},
	} {
		if why := archtest.Example(c.path, c.test); (why == "") != c.ok {
			t.Errorf("example → %s (test %v): %q, want allowed %v", c.path, c.test, why, c.ok)
		}
	}
}

// TestPluginRules checks what a plugin may not reach past the host API.
func TestPluginRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"plugins/nostr", "core/outbox", false},
		{"plugins/onchain", "app", false},
		{"plugins/webhooks", "app/builtins", false},
		{"plugins/lnurl", "api", false},
		{"plugins/nostr", "host", true},
		{"plugins/onchain", "core/ledger", true},
		{"host", "core/outbox", true},
		{"app/builtins", "plugins/lnurl", true},
		{"app", "plugins/lnurl", false},
		{"app", "plugins/nostr", false},
		{"app", "plugins/node/embedded", true},
	} {
		if why := archtest.Direct(c.from, c.to); (why == "") != c.ok {
			t.Errorf("%s → %s: %q, want allowed %v", c.from, c.to, why, c.ok)
		}
	}
	for line, want := range map[string]string{
		"\tled *ledger.Service":                           "ledger.Service",
		"\tl := ledger.New(db, nil, nil, cfg, nil)":       "ledger.New(",
		"// the ledger resubscribes (ledger.Service.Run)": "",
		"\tinv *ledger.Invoice // not ledger.Service":     "",
		"\treq ledger.NewInvoice":                         "",
	} {
		if got := archtest.LedgerService(line); got != want {
			t.Errorf("LedgerService(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestFeatureName(t *testing.T) {
	for line, want := range map[string]string{
		"	LnAddressID *string `bun:\"ln_address_id\"`": "LnAddressID",
		"	q = q.Where(\"ln_address_id IS NOT NULL\")":  "ln_address_id",
		"	Addressed bool":                                    "Addressed",
		"	LNURL *lnurl.Plugin":                               "LNURL",
		"	Zapper Zapper // the zaps' checker":                "Zap",
		"	case \"nostr\":":                                   "nostr",
		"	Webhooks []string":                                 "Webhook",
		"// Nostr's consumer reads tagged invoices":          "",
		"	LnAddress *string `json:\"ln_address,omitempty\"`": "",
		"	TagPlugin string // the plugin's tags alone":       "",
	} {
		if got := archtest.FeatureName(line); got != want {
			t.Errorf("FeatureName(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestHanded(t *testing.T) {
	features := []string{"nwc", "onchain"}
	for _, c := range []struct{ rel, line, want string }{
		{"app/builtins/nwc.go", "\tp := nwc.New(nwc.Deps{DB: a.DB, NodeInfo: a.Node.Info})", "builds the nwc plugin"},
		{"app/feature.go", "\td := onchain.Deps{DB: a.DB}", "builds the onchain plugin"},
		{"plugins/onchain/onchain.go", "\tNode ledger.Node", "names ledger.Node"},
		{"plugins/onchain/sync.go", "\tif _, ok := p.chain.(ledger.ChainSpender); ok {", "names ledger.ChainSpender"},
		{"plugins/nwc/descriptor.go", "\tp := New(Deps{DB: env.Tables()})", ""},
		{"app/builtins/builtins.go", "\t\tnwc.Descriptor(nil),", ""},
		{"plugins/node/lnd/lnd.go", "\tvar _ ledger.Node = (*Node)(nil)", ""},
		{"plugins/onchain/pay.go", "\t// unlike ledger.Node, the facade never pays", ""},
	} {
		if got := archtest.Handed(c.rel, c.line, features); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("Handed(%q, %q) = %q, want %q", c.rel, c.line, got, c.want)
		}
	}
}
