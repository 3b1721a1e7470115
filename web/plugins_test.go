package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/plugintest"
)

// noopManifest is the manifest the test gives host/testdata's noop plugin:
// a config schema of every type the host knows, scopes of each kind, and a
// description that would be markup if it were not shown as text.
const noopManifest = `{"name":"noop","version":"0.3.1","abi":"hearth_v1",
	"description":"` + xssProbe + `",
	"scopes":["read:wallet","read:transaction","http:outbound:hooks.example.com"],
	"events":["invoice.settled"],
	"config":{
		"greeting":{"type":"string","description":"said to each payer"},
		"loud":{"type":"boolean"},
		"ratio":{"type":"number","default":0.5},
		"retries":{"type":"integer","required":true,"description":"1 to 5"},
		"token":{"type":"string","secret":true}}}`

// pluginInfo is what the test reads of GET /v1/plugins/{name}.
type pluginInfo struct {
	Name         string                     `json:"name"`
	State        string                     `json:"state"`
	Granted      []string                   `json:"granted"`
	WalletID     string                     `json:"wallet_id"`
	SHA256       string                     `json:"sha256"`
	Config       map[string]any             `json:"config"`
	ConfigSchema map[string]json.RawMessage `json:"config_schema"`
}

// TestDashboardPlugins drives the Plugins screen as the admin would, on
// SQLite and on PostgreSQL: it installs the paywall example (its module
// and its manifest.json, as shipped) and host/testdata's noop plugin by
// uploading their files, is refused a wrong SHA-256 and an enable before
// the required configuration, configures both from their schemas (the
// API's refusal of a bad value shown on its field), enables them with a
// checklist of their scopes and a wallet, reads the logs, disables one,
// removes the other, and checks each step through the API; then a user's
// key sees no admin screen.
func TestDashboardPlugins(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"paywall.wasm": plugintest.Build(t, filepath.Join("..", "examples", "paywall")),
		"noop.wasm":    plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "noop")),
		"noop.json":    []byte(noopManifest),
	}
	shipped, err := os.ReadFile(filepath.Join("..", "examples", "paywall", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	files["paywall.json"] = shipped
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			h := startHearthWith(t, serverOptions{wasm: true, postgres: db == "postgres"})
			pluginsFlow(t, chromium, h, dir, files)
		})
	}
}

func pluginsFlow(t *testing.T, chromium string, h *hearth, dir string, files map[string][]byte) {
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	var shop struct{ ID string }
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "shop", "label": "Corner shop"}, http.StatusCreated, &shop, admin...)
	var dave struct{ Key string }
	h.call("POST", "/v1/wallets", map[string]string{"user_id": "dave"}, http.StatusCreated, nil, admin...)
	h.call("POST", "/v1/api-keys", map[string]any{"user_id": "dave", "name": "dave",
		"permissions": []string{"read:wallet", "write:wallet", "read:transaction"}}, http.StatusCreated, &dave, admin...)
	plugin := func(name string) pluginInfo {
		t.Helper()
		var p pluginInfo
		h.call("GET", "/v1/plugins/"+name, nil, http.StatusOK, &p, admin...)
		return p
	}

	ctx := startBrowser(t, chromium, 8*time.Minute, chromedp.WindowSize(1280, 900))
	w := &watcher{origin: h.URL}
	if err := w.listen(ctx); err != nil {
		t.Fatal(err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifactsDir(t), w: w}
	shot := func(name string) { p.screenshot(name + "-" + filepath.Base(t.Name())) }
	p.do("start the browser", call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}), call(runtime.Enable, cdp.Empty{}))
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")), visible(heading("Wallet")))
	row := func(name, state string) string {
		return `//li[@data-name='` + name + `'][@data-state='` + state + `']//span[contains(@class,'badge')][normalize-space()='` + state + `']`
	}
	alert := func(part string) string { return `//p[@role='alert'][contains(., '` + part + `')]` }
	upload := func(label, file string) chromedp.Action[chromedp.Void] {
		return chromedp.SetUploadFiles(input(label), []string{filepath.Join(dir, file)})
	}
	notice := func(s string) string { return text("p", s) }

	p.do("open Plugins", click(link("Plugins")), visible(heading("Plugins")), visible(row("node-embedded", "enabled")))
	checkLabels(p)

	// Install the paywall from the files it ships with.
	p.do("pick the paywall's files", upload("Module (.wasm)", "paywall.wasm"), upload("Manifest (manifest.json)", "paywall.json"),
		visible(`//dl[contains(@class,'manifest-preview')]//dd[normalize-space()='read:transaction, write:transaction']`))
	p.do("install it", click(button("Install plugin")), visible(row("paywall", "installed")),
		visible(notice("paywall 1.0.0 installed. Configure it if it asks, then enable it.")),
		visible(`//li[@data-name='paywall']//dd[normalize-space()='Needs content, price_msat before it can be enabled']`))
	sum := sha256.Sum256(files["paywall.wasm"])
	if got := plugin("paywall"); got.State != "installed" || got.SHA256 != hex.EncodeToString(sum[:]) || len(got.ConfigSchema) != 3 {
		t.Fatalf("after the upload the API has %+v", got)
	}

	// noop, first with a SHA-256 that is not its module's: refused.
	p.do("pick noop's files", upload("Module (.wasm)", "noop.wasm"), upload("Manifest (manifest.json)", "noop.json"),
		typeIn("SHA-256 of the module", "sha256:"+hex.EncodeToString(sum[:])), click(button("Install plugin")),
		visible(alert("not the pinned "+hex.EncodeToString(sum[:]))))
	w.take(t, "answered 422")
	w.take(t, "status of 422")
	p.do("install it unpinned", typeIn("SHA-256 of the module", ""), click(button("Install plugin")), visible(row("noop", "installed")))
	p.do("its description is text", visible(`//li[@data-name='noop']/p[@class='plugin-desc'][normalize-space()=`+jsString(xssProbe)+`]`))
	if n := get(p, "look for the probe's element", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`)); n != 0 {
		t.Fatalf("the description %q became %d element(s)", xssProbe, n)
	}

	// Enabling before the required configuration: the API's refusal.
	p.do("enable the paywall too soon", click(button("Enable paywall")),
		visible(`//input[@id='grant-paywall-write:transaction']`), click(button("Grant and enable")),
		visible(alert("configure the plugin first")))
	w.take(t, "answered 422")
	w.take(t, "status of 422")
	if got := plugin("paywall"); got.State != "installed" {
		t.Fatalf("the refused enable left the paywall %s", got.State)
	}

	// Configure it from its schema; a price that is no number is refused
	// by the API, on its field.
	p.do("configure the paywall", click(button("Configure paywall")), visible(`//h3[normalize-space()='Configure paywall']`),
		visible(`//p[contains(., 'Default: Hearth paywall')]`),
		typeIn("price_msat (required)", "twenty sats"), typeIn("content (required)", "The recipe: <b>flour</b>, water, salt."),
		click(button("Save configuration")), visible(alert("config price_msat: want a number")),
		visible(`//input[@id='config-paywall-price_msat'][@aria-invalid='true']`))
	w.take(t, "answered 422")
	w.take(t, "status of 422")
	checkLabels(p)
	shot("plugins-configure")
	p.do("fix the price", typeIn("price_msat (required)", "21000"), click(button("Save configuration")),
		visible(notice("Configuration of paywall saved.")))
	cfg := plugin("paywall").Config
	if cfg["price_msat"] != 21000.0 || cfg["content"] != "The recipe: <b>flour</b>, water, salt." || cfg["title"] != "Hearth paywall" {
		t.Fatalf("the paywall's config is %v", cfg)
	}

	// Enable it for the shop's wallet with both scopes.
	p.do("enable the paywall", click(button("Enable paywall")), choose("Wallet it acts on", shop.ID),
		visible(`//label[@for='grant-paywall-write:transaction'][contains(., 'it can spend the wallet’s money')]`))
	checkLabels(p)
	shot("plugins-enable")
	p.do("grant and enable", click(button("Grant and enable")), visible(row("paywall", "enabled")),
		visible(notice("paywall enabled.")), visible(`//li[@data-name='paywall']//dd[normalize-space()='shop · Corner shop']`))
	got := plugin("paywall")
	if got.State != "enabled" || got.WalletID != shop.ID || !sameSet(got.Granted, "read:transaction", "write:transaction") {
		t.Fatalf("after Grant and enable the API has %+v", got)
	}
	// It works, for the wallet picked: its public route makes the shop an invoice.
	var sale struct {
		InvoiceID string `json:"invoice_id"`
	}
	h.call("GET", "/v1/plugins/paywall/buy", nil, http.StatusCreated, &sale)
	var inv struct {
		WalletID   string `json:"wallet_id"`
		AmountMsat int64  `json:"amount_msat"`
	}
	h.call("GET", "/v1/invoices/"+sale.InvoiceID, nil, http.StatusOK, &inv, admin...)
	if inv.WalletID != shop.ID || inv.AmountMsat != 21000 {
		t.Fatalf("the paywall's invoice: %+v, want 21000 msat in the shop's wallet %s", inv, shop.ID)
	}

	// noop: every type of field, a secret, and one scope left out.
	p.do("configure noop", click(button("Configure noop")), visible(`//h3[normalize-space()='Configure noop']`),
		typeIn("retries (required)", "3"), typeIn("ratio", "0.25"), typeIn("greeting", "hello <i>you</i>"),
		click(`//input[@id='config-noop-loud']`), typeIn("token", "s3cret"), click(button("Save configuration")),
		visible(notice("Configuration of noop saved.")))
	cfg = plugin("noop").Config
	if cfg["retries"] != 3.0 || cfg["ratio"] != 0.25 || cfg["loud"] != true || cfg["greeting"] != "hello <i>you</i>" || cfg["token"] != "********" {
		t.Fatalf("noop's config is %v", cfg)
	}
	p.do("the form shows it back", click(button("Configure noop")), visible(`//p[contains(., 'Set, never shown back. Leave it empty to keep it')]`))
	if v := get(p, "read the greeting", chromedp.Value(chromedp.CSS(`#config-noop-greeting`))); v != "hello <i>you</i>" {
		t.Fatalf("the greeting field holds %q", v)
	}
	if v := get(p, "read the token", chromedp.Value(chromedp.CSS(`#config-noop-token`))); v != "" {
		t.Fatalf("the secret's field holds %q", v)
	}
	storedConfig := func() map[string]any {
		t.Helper()
		var raw string
		if err := h.db.R.NewSelect().Table("plugins").Column("config").Where("name = ?", "noop").Scan(t.Context(), &raw); err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	// The saved form closes: the notice of the last save stays up till then.
	configNoop := `//h3[normalize-space()='Configure noop']`
	// Another field changed, the secret not typed again: it is kept (as
	// stored; the API still masks it), and the greeting emptied is unset.
	p.do("change retries, empty the greeting, leave the token", visible(`//p[contains(., 'Leave it empty to unset it')]`),
		typeIn("retries (required)", "4"), typeIn("greeting", ""), click(button("Save configuration")),
		chromedp.WaitNotPresent(configNoop), visible(notice("Configuration of noop saved.")))
	if cfg := plugin("noop").Config; cfg["retries"] != 4.0 || cfg["token"] != "********" || cfg["greeting"] != nil {
		t.Fatalf("noop's config after the second save is %v", cfg)
	}
	if cfg := storedConfig(); cfg["token"] != "s3cret" || cfg["retries"] != 4.0 || cfg["greeting"] != nil {
		t.Fatalf("noop's stored config after the second save is %v", cfg)
	}
	// The optional secret cleared on purpose.
	p.do("open the form again", click(button("Configure noop")), visible(input("Clear token")))
	shot("plugins-configure-secret")
	p.do("clear the token", click(input("Clear token")), click(button("Save configuration")),
		chromedp.WaitNotPresent(configNoop), visible(notice("Configuration of noop saved.")))
	if cfg := storedConfig(); cfg["token"] != nil || cfg["retries"] != 4.0 {
		t.Fatalf("noop's stored config after clearing the token is %v", cfg)
	}
	p.do("the form says it is unset", click(button("Configure noop")), visible(`//p[contains(., 'Secret: never shown back.')]`),
		chromedp.WaitNotPresent(`//label[normalize-space()='Clear token']`))
	p.do("enable noop without read:transaction", click(button("Cancel")), click(button("Enable noop")),
		click(`//input[@id='grant-noop-read:transaction']`), click(button("Grant and enable")), visible(row("noop", "enabled")))
	if got := plugin("noop"); !sameSet(got.Granted, "read:wallet", "http:outbound:hooks.example.com") {
		t.Fatalf("noop was granted %v", got.Granted)
	}

	// The paywall's logs, then disabled; noop removed.
	p.do("read the paywall's logs", click(button("Logs of paywall")),
		visible(`//ol[contains(@class,'logs')]/li[contains(., 'enabled with read:transaction write:transaction')]`))
	checkLabels(p)
	shot("plugins")
	p.do("disable the paywall", click(button("Disable paywall")), visible(row("paywall", "disabled")), visible(button("Enable paywall")))
	if got := plugin("paywall"); got.State != "disabled" {
		t.Fatalf("the paywall is %s after Disable", got.State)
	}
	if code := h.status("GET", "/v1/plugins/paywall/buy"); code != http.StatusServiceUnavailable {
		t.Fatalf("a disabled paywall's route answered %d", code)
	}
	p.do("its logs say so", click(button("Logs of paywall")), visible(`//ol[contains(@class,'logs')]/li[last()][contains(., 'disabled')]`))
	p.do("remove noop", click(button("Remove noop")), click(button("Remove noop now")), visible(notice("noop removed.")),
		chromedp.WaitNotPresent(`//li[@data-name='noop']`))
	h.call("GET", "/v1/plugins/noop", nil, http.StatusNotFound, nil, admin...)

	// At 390 px: the list and the grant form fit.
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	p.do("enable at 390 px", click(button("Enable paywall")), visible(button("Grant and enable")))
	checkNoOverflow(p)
	shot("plugins-390")
	p.do("configure at 390 px", click(button("Configure paywall")), visible(button("Save configuration")))
	checkNoOverflow(p)
	shot("plugins-configure-390")
	p.do("back to the desktop", chromedp.EmulateReset())

	// dave's key: no admin screen, and the page asks nothing of /v1/plugins.
	p.do("sign out", click(button("Sign out")), visible(heading("Sign in")))
	w.mu.Lock()
	before := len(w.requests)
	w.mu.Unlock()
	p.do("sign in as dave", typeIn("API key", dave.Key), click(button("Sign in with the key")),
		visible(heading("Wallet")), visible(`//span[@class='user'][normalize-space()='dave']`))
	if n := get(p, "look for the admin's links", chromedp.Evaluate[int](`[...document.querySelectorAll('nav a')].filter((a) => ['Admin', 'Plugins'].includes(a.textContent)).length`)); n != 0 {
		t.Fatal("an admin screen is offered to a user who is not the admin")
	}
	p.do("no plugins page", chromedp.Navigate(h.URL+"/#/plugins"), visible(heading("Not found")))
	w.mu.Lock()
	for _, u := range w.requests[before:] {
		if strings.Contains(u, "/v1/plugins") {
			t.Errorf("dave's session asked for %s", u)
		}
	}
	w.mu.Unlock()
	w.check(t)
}

// sameSet reports whether got holds exactly want, in any order.
func sameSet(got []string, want ...string) bool {
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
