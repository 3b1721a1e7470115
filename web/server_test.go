package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugins/onchain"
	"github.com/hearthwallet/hearth/plugins/rates"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugins/withdraw"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// hearth is a Hearth server on SQLite in a temporary folder (or on
// PostgreSQL, serverOptions.postgres), built as
// `hearth serve` builds it (app.New: the embedded node, the ledger, the
// outbox and its live stream, the plugin registry with the built-in
// webhooks and lnurl, the API and so the dashboard), on a random port of
// 127.0.0.1. Private hosts are allowed (plugins.allow_private_hosts), so a
// webhook may be sent over http to a receiver the test runs on loopback.
// Lightning Addresses are user@hearth.test (testDomain); public_url is the
// server's own URL, so the callbacks it hands out are reachable.
type hearth struct {
	t   *testing.T
	srv *httptest.Server
	URL string
	// db is the server's database, for a test to check what is stored
	// where the API shows less (a plugin's secret config).
	db *store.DB
	// app is the server's application, for what a test sets up beside
	// the browser (a plugin installed, a payment from outside).
	app *app.App
}

// startHearth starts a server; with wasmPlugins its registry runs
// WebAssembly plugins (a wazero runtime, as hearth serve has).
func startHearth(t *testing.T, wasmPlugins bool) *hearth {
	t.Helper()
	return startHearthWith(t, serverOptions{wasm: wasmPlugins})
}

// serverOptions change the test server.
type serverOptions struct {
	// wasm runs WebAssembly plugins.
	wasm bool
	// disableWebhooksAfter, when set, disables a webhook failing for this
	// long (a config says it in days) so that a test sees one disabled.
	disableWebhooksAfter time.Duration
	// oidcIssuer, when set, makes people sign in at this OpenID Connect
	// provider (auth.provider "oidc"), the dashboard being its client
	// oidcClientID, tokens for oidcAudience.
	oidcIssuer string
	// nostr adds the built-in Nostr plugin, with short retries.
	nostr bool
	// onchain adds the built-in on-chain wallet; over the lnd node of
	// chainNet when it is set (node.backend "lnd"), else over the embedded
	// node, whose bitcoin routes answer 422 onchain_unavailable.
	onchain  bool
	chainNet *regtest.Network
	// nwc adds the built-in Nostr Wallet Connect plugin, with nwcRelays
	// (comma-separated ws:// URLs) as its [nwc] relays, read as hearth
	// serve reads them (HEARTH_NWC_RELAYS); without relays NWC is off.
	nwc       bool
	nwcRelays string
	// catalog is the server's plugins.catalog, an index's URL.
	catalog string
	// withdraw adds the built-in LNURL-withdraw plugin.
	withdraw bool
	// rates adds the built-in rates plugin with these prices by hand
	// (rates.fixed, e.g. "USD:95000") and no source.
	rates string
	// postgres keeps the server's data in PostgreSQL (a schema of its own,
	// storetest.Postgres: skipped without HEARTH_TEST_POSTGRES_URL) instead
	// of SQLite.
	postgres bool
}

// testDomain is the part after @ of the test server's Lightning Addresses.
const testDomain = "hearth.test"

// startHearthWith starts a server with opts.
func startHearthWith(t *testing.T, opts serverOptions) *hearth {
	t.Helper()
	ctx := context.Background()
	var db *store.DB
	if opts.postgres {
		db = storetest.Postgres(t)
	} else {
		db = storetest.SQLite(t)
	}
	cfg := config.Default()
	if opts.nwc {
		var err error
		cfg, err = app.LoadConfig("", []string{"HEARTH_NWC_RELAYS=" + opts.nwcRelays}, []app.Builtin{app.Feature(nwc.Descriptor(nil))})
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg.Plugins.AllowPrivateHosts = true
	cfg.Plugins.Catalog = opts.catalog
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Domain = testDomain
	cfg.PublicURL = "http://" + ln.Addr().String()
	if opts.oidcIssuer != "" {
		cfg.Auth.Provider = "oidc"
		cfg.Auth.OIDC.Issuer = opts.oidcIssuer
		cfg.Auth.OIDC.Audience = oidcAudience
		cfg.Auth.OIDC.ClientID = oidcClientID
	}
	list := []app.Builtin{
		app.EmbeddedNode(),
		app.Feature(webhooks.Descriptor(func(c *webhooks.Config) {
			c.FirstRetry = 100 * time.Millisecond
			if opts.disableWebhooksAfter != 0 {
				c.DisableAfter = opts.disableWebhooksAfter
			}
		})),
		app.Feature(lnurl.Descriptor()),
	}
	if opts.nostr {
		list = append(list, app.Feature(nostr.Descriptor(func(c *nostr.Config) {
			c.FirstRetry, c.MaxBackoff, c.Poll = 200*time.Millisecond, time.Second, 100*time.Millisecond
		})))
	}
	o := app.Options{Builtins: list, NoWasm: !opts.wasm, Wasm: func(w *wasm.Options) {
		// Normal priority: idle-priority plugin threads starve on a busy
		// machine (plugintest's advice).
		w.CacheDir, w.CPUShare, w.CPUBurst, w.NormalPriority = plugintest.CompileCacheDir(), plugintest.CPUShare, plugintest.CPUBurst, true
	}}
	if opts.nwc {
		o.Builtins = append(o.Builtins, app.Feature(nwc.Descriptor(nil)))
	}
	if opts.onchain {
		o.Builtins = append(o.Builtins, app.Feature(onchain.Descriptor(nil)))
	}
	if opts.withdraw {
		o.Builtins = append(o.Builtins, app.Feature(withdraw.Descriptor(nil)))
	}
	if opts.rates != "" {
		o.Builtins = append(o.Builtins, app.Feature(rates.Descriptor(func(c *rates.Config) {
			s := rates.DefaultSettings()
			s.Sources, s.Fixed = "", opts.rates
			cfg, err := rates.ConfigOf(s)
			if err != nil {
				t.Fatal(err)
			}
			*c = cfg
		})))
	}
	if opts.chainNet != nil {
		n, err := lnd.New(lnd.Config{Address: opts.chainNet.Hearth.RPCAddress, TLSCert: opts.chainNet.Hearth.TLSCertPath(),
			Macaroon: opts.chainNet.Hearth.MacaroonPath()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		cfg.Node.Backend, o.Node = "lnd", n
	}
	a, err := app.New(ctx, cfg, db, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(server.New(a, "test", "now"))
	srv.Config.RegisterOnShutdown(a.Hub.Close)
	srv.Listener.Close()
	srv.Listener = ln
	t.Cleanup(func() {
		a.Hub.Close() // the streams end, or Close would wait for them
		srv.Close()
		a.Close()
	})
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv.Start()
	return &hearth{t: t, srv: srv, URL: srv.URL, db: db, app: a}
}

// dropConnections closes every connection to the server, the browser's
// event stream among them, as a network failure would.
func (h *hearth) dropConnections() { h.srv.CloseClientConnections() }

// call sends a request to the API with the header pairs given and decodes
// the answer into out (when not nil); it fails the test unless the status
// is want.
func (h *hearth) call(method, path string, body any, want int, out any, headers ...string) {
	h.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.URL+path, r)
	if err != nil {
		h.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		h.t.Fatalf("%s %s = %d, want %d: %s", method, path, resp.StatusCode, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: decoding %q: %v", method, path, data, err)
		}
	}
}

// status returns the status of a request, whatever it is.
func (h *hearth) status(method, path string, headers ...string) int {
	h.t.Helper()
	req, err := http.NewRequest(method, h.URL+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

type invoice struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	LnInvoice struct {
		Bolt11 string `json:"bolt11"`
	} `json:"ln_invoice"`
}

type balance struct {
	AvailableMsat int64 `json:"available_msat"`
}

// waitBalance waits (a minute at most: the machine may be busy) until the
// wallet of the credential has msat available.
func (h *hearth) waitBalance(msat int64, headers ...string) {
	h.t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var b balance
		h.call("GET", "/v1/me/balance", nil, http.StatusOK, &b, headers...)
		if b.AvailableMsat == msat {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("balance is %d msat, want %d", b.AvailableMsat, msat)
		}
		<-tick.C
	}
}

// fundedAdmin marks the welcome done, signs the admin up, funds the
// admin's wallet with msat paid in by the embedded node, and returns the
// admin's credential.
func (h *hearth) fundedAdmin(msat int64) []string {
	h.t.Helper()
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	var tok struct{ Token string }
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, &tok)
	admin := bearer(tok.Token)
	var fund invoice
	h.call("POST", "/v1/me/invoices", map[string]any{"amount_msat": msat}, http.StatusCreated, &fund, admin...)
	h.call("POST", "/v1/lightning-node/pay", map[string]string{"bolt11": fund.LnInvoice.Bolt11}, http.StatusNoContent, nil, admin...)
	h.waitBalance(msat, admin...)
	return admin
}

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func apiKey(key string) []string { return []string{"Api-Key", key} }

func idem(key string) []string { return []string{"Idempotency-Key", key} }
