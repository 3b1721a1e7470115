package web_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/plugintest"
)

// TestDashboardPlugins enables, disables and reads the logs of a
// WebAssembly plugin from the Admin view.
func TestDashboardPlugins(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearth(t, true)
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "noop"))
	sum := sha256.Sum256(module)
	h.call("POST", "/v1/plugins", map[string]any{
		"manifest": json.RawMessage(`{"name":"noop","version":"1.0.0","abi":"hearth_v1","scopes":["read:wallet"],
			"events":["invoice.settled","payment.settled"]}`),
		"wasm":   base64.StdEncoding.EncodeToString(module),
		"sha256": hex.EncodeToString(sum[:]),
	}, http.StatusCreated, nil, bearer(tok.Token)...)

	ctx := startBrowser(t, chromium, 5*time.Minute, chromedp.WindowSize(1280, 900))
	w := &watcher{origin: h.URL}
	if err := w.listen(ctx); err != nil {
		t.Fatal(err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifactsDir(t), w: w}
	p.do("start the browser", call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}))
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")), visible(heading("Wallet")))
	row := func(state string) string {
		return `//li[@data-name='noop']//span[normalize-space()='` + state + `']`
	}
	p.do("open Admin", click(link("Admin")), visible(heading("Admin")), visible(row("installed")))
	p.do("enable it", click(button("Enable noop")), visible(`//input[@value='read:wallet'][@id='grant-noop-read:wallet']`),
		click(button("Enable plugin")), visible(row("enabled")), visible(button("Disable noop")))
	checkLabels(p)
	p.screenshot("plugins-desktop")
	p.do("disable it", click(button("Disable noop")), visible(row("disabled")), visible(button("Enable noop")))
	p.do("read its logs", click(button("Logs of noop")), visible(`//li[@data-name='noop']//*[self::ol[contains(@class,'logs')] or self::p[normalize-space()='No log lines.']]`))
	var info []struct {
		Name, State string
	}
	h.call("GET", "/v1/plugins", nil, http.StatusOK, &info, bearer(tok.Token)...)
	for _, pl := range info {
		if pl.Name == "noop" && pl.State != "disabled" {
			t.Fatalf("noop is %s after Disable", pl.State)
		}
	}
	w.check(t)
}
