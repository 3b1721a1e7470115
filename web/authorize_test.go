package web_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// appPage is a web app on another origin that connects to a wallet as
// apps do, with @getalby/sdk's browser bundle: NWCClient.fromAuthorizationUrl
// opens the wallet's /apps/new in a popup and resolves to a client once
// the wallet answers; the page then asks the wallet for its balance and an
// invoice, and shows what it got (or the error) in #result as JSON.
const appPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test shop</title>
<script src="/sdk.js"></script><script src="/app.js" defer></script></head>
<body><h1>Test shop</h1><button id="connect" type="button">Connect a wallet</button><pre id="result"></pre></body></html>`

const appScript = `document.getElementById('connect').addEventListener('click', async () => {
  const out = document.getElementById('result');
  try {
    const client = await AlbySdk.NWCClient.fromAuthorizationUrl(WALLET + '/apps/new', {
      name: 'Test shop', requestMethods: ['get_balance', 'make_invoice', 'pay_invoice'], maxAmount: 5000, budgetRenewal: 'weekly',
    });
    const balance = await client.getBalance();
    const invoice = await client.makeInvoice({ amount: 21000, description: 'from the shop' });
    out.textContent = JSON.stringify({ pubkey: client.publicKey, walletPubkey: client.walletPubkey, balance: balance.balance, invoice: invoice.invoice });
  } catch (e) {
    out.textContent = JSON.stringify({ error: String(e && e.stack || e) });
  }
});`

// TestAppAuthorizesInPopup: an app on another origin calls the SDK's
// fromAuthorizationUrl; the wallet's page opens in a popup, asks its
// owner to sign in (the popup has no session yet) and then shows what the
// app asks; the owner lowers the budget and approves; the app's page
// gets a working client (its get_balance and make_invoice answered), and
// the connection is the app's own key with the lowered budget.
func TestAppAuthorizesInPopup(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	bundle, err := os.ReadFile(filepath.Join(nostrtest.AlbySDK(t), "node_modules", "@getalby", "sdk", "dist", "alby-sdk.umd.js"))
	if err != nil {
		t.Fatal(err)
	}
	relay := nostrtest.StartRelay(t)
	h := startHearthWith(t, serverOptions{nwc: true, nwcRelays: relay.URL()})
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)

	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(appPage)) //nolint:errcheck
		case "/sdk.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write(bundle) //nolint:errcheck
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte("const WALLET = " + jsString(h.URL) + ";\n" + appScript)) //nolint:errcheck
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(shop.Close)

	ctx := startBrowser(t, chromium, 5*time.Minute, chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-US"))
	app := &person{t: t, ctx: ctx, artifacts: artifactsDir(t), w: &watcher{origin: shop.URL}}
	app.do("open the shop", chromedp.Navigate(shop.URL+"/"), visible(heading("Test shop")))
	opened := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return strings.Contains(i.URL, "/apps/new") })
	app.do("connect a wallet", click(button("Connect a wallet")))
	var id target.ID
	select {
	case id = <-opened:
	case <-time.After(stepTimeout):
		t.Fatalf("no popup opened at /apps/new; the shop's page says %q",
			get(app, "read the shop's result", chromedp.Evaluate[string](`document.getElementById('result').textContent`)))
	}
	popupCtx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	defer cancel()
	w := &watcher{origin: h.URL}
	if err := w.listen(popupCtx); err != nil {
		t.Fatal(err)
	}
	popup := &person{t: t, ctx: popupCtx, artifacts: app.artifacts, w: w}
	popup.do("sign in first", visible(`//p[contains(., 'An app asks to connect to your wallet')]`),
		typeIn("Password", password), click(button("Sign in")))
	popup.do("read what the shop asks", visible(heading("Connect an app")),
		visible(`//dd[normalize-space()='Test shop']`),
		visible(`//dd[normalize-space()=`+jsString(relay.URL())+`]`),
		visible(`//label[normalize-space()='pay_invoice']`),
		visible(`//p[contains(., 'It asks for a budget of 5,000 sat')]`))
	checkLabels(popup)
	popup.screenshot("apps-new-ask")
	popup.do("untick pay_invoice, lower the budget and approve", click(`//input[@id='ask-pay_invoice']`),
		typeIn("Budget (sats)", "2000"), click(button("Approve Test shop")))

	var result struct {
		Pubkey, WalletPubkey, Invoice, Error string
		Balance                              *int64
	}
	app.do("wait for the shop's client", visible(`//pre[@id='result'][normalize-space() != '']`))
	raw := get(app, "read the shop's result", chromedp.Evaluate[string](`document.getElementById('result').textContent`))
	if err := json.Unmarshal([]byte(raw), &result); err != nil || result.Error != "" || result.Balance == nil || result.Invoice == "" {
		t.Fatalf("the shop's page says %s", raw)
	}

	var conns []struct {
		Pubkey       string   `json:"pubkey"`
		WalletPubkey string   `json:"wallet_pubkey"`
		Methods      []string `json:"methods"`
		Budget       *struct {
			MaxMsat int64  `json:"max_msat"`
			Renewal string `json:"renewal"`
		} `json:"budget"`
	}
	h.call("GET", "/v1/me/nwc/connections", nil, http.StatusOK, &conns, admin...)
	if len(conns) != 1 || conns[0].Pubkey != result.Pubkey || conns[0].WalletPubkey != result.WalletPubkey ||
		strings.Join(conns[0].Methods, " ") != "get_balance make_invoice" || conns[0].Budget == nil ||
		conns[0].Budget.MaxMsat != 2_000_000 || conns[0].Budget.Renewal != "weekly" {
		t.Fatalf("the connection made: %+v (the shop's key %s)", conns, result.Pubkey)
	}
	var invoices []struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	h.call("GET", "/v1/me/invoices", nil, http.StatusOK, &invoices, admin...)
	if len(invoices) != 1 || invoices[0].LnInvoice.Bolt11 != result.Invoice {
		t.Fatalf("the wallet's invoices %+v, the shop got %s", invoices, result.Invoice)
	}
	w.check(t)
}
