package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestDashboardPluginCatalog: the admin browses the server's catalog,
// installs a plugin from it by name, enables it, and when the index lists
// a newer version that asks for one more scope, updates it: the plugin is
// left installed for the admin to grant what it asks.
func TestDashboardPluginCatalog(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "noop"))
	s := sha256.Sum256(module)
	var next atomic.Bool // the index lists 1.1.0, asking for write:transaction too
	index := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pinger.wasm" {
			_, _ = w.Write(module)
			return
		}
		version, scopes := "1.0.0", []string{"read:transaction"}
		if next.Load() {
			version, scopes = "1.1.0", []string{"read:transaction", "write:transaction"}
		}
		m, _ := json.Marshal(map[string]any{"name": "pinger", "version": version, "abi": "hearth_v1", "scopes": scopes,
			"description": "Answers pings"})
		_ = json.NewEncoder(w).Encode([]map[string]any{{"name": "pinger", "version": version, "description": "Answers pings",
			"url": "http://" + r.Host + "/pinger.wasm", "sha256": hex.EncodeToString(s[:]), "manifest": json.RawMessage(m)}})
	}))
	defer index.Close()
	h := startHearthWith(t, serverOptions{wasm: true, catalog: index.URL + "/index.json"})
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	plugin := func() pluginInfo {
		t.Helper()
		var p pluginInfo
		h.call("GET", "/v1/plugins/pinger", nil, http.StatusOK, &p, admin...)
		return p
	}

	ctx := startBrowser(t, chromium, 4*time.Minute, chromedp.WindowSize(1280, 900))
	w := &watcher{origin: h.URL}
	if err := w.listen(ctx); err != nil {
		t.Fatal(err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifactsDir(t), w: w}
	row := func(state string) string {
		return `//ul[@class='plugins']/li[@data-name='pinger'][@data-state='` + state + `']`
	}
	notice := func(s string) string { return text("p", s) }
	p.do("start the browser", call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}), call(runtime.Enable, cdp.Empty{}))
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")), visible(heading("Wallet")))
	p.do("open Plugins", click(link("Plugins")), visible(heading("Plugins")), click(button("Browse the catalog")),
		visible(`//li[@data-name='pinger'][contains(@class,'catalog-entry')]//p[normalize-space()='Asks for read:transaction']`))
	checkLabels(p)
	p.screenshot("plugins-catalog")
	p.do("install pinger", click(button("Install pinger")), visible(notice("pinger 1.0.0 installed. Configure it if it asks, then enable it.")),
		visible(row("installed")), visible(`//li[contains(@class,'catalog-entry')][@data-name='pinger']//span[normalize-space()='Installed, up to date']`))
	p.do("enable it", click(button("Enable pinger")), click(button("Grant and enable")), visible(row("enabled")))

	next.Store(true)
	p.do("see the update", click(button("Refresh the catalog")), visible(button("Update pinger to 1.1.0")),
		visible(`//li[contains(@class,'catalog-entry')]//span[normalize-space()='1.1.0 · 1.0.0 installed']`))
	p.do("update it", click(button("Update pinger to 1.1.0")),
		visible(notice("pinger updated to 1.1.0. Enable it again to grant what it asks for.")), visible(row("installed")),
		visible(`//ul[@class='plugins']/li[@data-name='pinger']/p[@class='error'][contains(., 'asks for more (write:transaction)')]`))
	if got := plugin(); got.State != "installed" || len(got.Granted) != 0 {
		t.Fatalf("after the update the API has %+v", got)
	}
	w.check(t)
}
