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

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugintest"
)

// hearth is a Hearth server on SQLite in a temporary folder (or on
// PostgreSQL, serverOptions.postgres), wired as
// `hearth serve` wires it (the embedded node, the ledger, the outbox and
// its live stream, the plugin registry with the built-in webhooks and
// lnurl, the API and so the dashboard), on a random port of 127.0.0.1.
// Private hosts are allowed (plugins.allow_private_hosts), so a webhook may
// be sent over http to a receiver the test runs on loopback. Lightning
// Addresses are user@hearth.test (testDomain); public_url is the server's
// own URL, so the callbacks it hands out are reachable.
type hearth struct {
	t   *testing.T
	srv *httptest.Server
	URL string
	// db is the server's database, for a test to check what is stored
	// where the API shows less (a plugin's secret config).
	db *store.DB
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
	// postgres keeps the server's data in PostgreSQL (a schema of its own,
	// storetest.Postgres: skipped without HEARTH_TEST_POSTGRES_URL) instead
	// of SQLite.
	postgres bool
}

// startHearthWith starts a server with opts.
func startHearthWith(t *testing.T, opts serverOptions) *hearth {
	t.Helper()
	wasmPlugins := opts.wasm
	ctx, cancel := context.WithCancel(context.Background())
	var db *store.DB
	if opts.postgres {
		db = storetest.Postgres(t)
	} else {
		db = storetest.SQLite(t)
	}
	cfg := config.Default()
	cfg.Plugins.AllowPrivateHosts = true
	cfg.Webhooks.FirstRetry = config.Duration{Duration: 100 * time.Millisecond}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Domain = testDomain
	cfg.PublicURL = "http://" + ln.Addr().String()
	var verifier *auth.OIDC
	if opts.oidcIssuer != "" {
		cfg.Auth.Provider = "oidc"
		cfg.Auth.OIDC.Issuer = opts.oidcIssuer
		cfg.Auth.OIDC.Audience = oidcAudience
		cfg.Auth.OIDC.ClientID = oidcClientID
		verifier = auth.NewOIDC(auth.OIDCConfig{Issuer: opts.oidcIssuer, Audience: oidcAudience})
	}
	tokens, err := auth.NewTokens(ctx, db, cfg.Auth.TokenExpiry.Duration)
	if err != nil {
		t.Fatal(err)
	}
	node, err := embedded.New(ctx, db, "regtest")
	if err != nil {
		t.Fatal(err)
	}
	bus := event.NewBus()
	led := ledger.New(db, node, bus, ledger.Config{DefaultExpiry: cfg.InvoiceExpiry.Duration}, nil)
	// The settlements of the invoices the embedded node pays as an outside
	// payer (POST /v1/lightning-node/pay).
	settled, err := node.SubscribeInvoices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	box, err := outbox.New(ctx, db, outbox.Config{Wake: bus})
	if err != nil {
		t.Fatal(err)
	}
	hub := outbox.NewHub(box)
	done := make(chan struct{}, 4)
	go func() { defer func() { done <- struct{}{} }(); led.Consume(ctx, settled) }()
	go func() { defer func() { done <- struct{}{} }(); box.Run(ctx) }() //nolint:errcheck // ends with ctx
	go func() { defer func() { done <- struct{}{} }(); hub.Run(ctx) }()
	wallets := wallet.NewService(db)
	addresses, err := newLNURL(cfg, db, led, wallets)
	if err != nil {
		t.Fatal(err)
	}
	hapi := host.NewAPI(host.APIDeps{DB: db, Ledger: led, Wallets: wallets, LNURL: addresses.Client()})
	deps := host.RegistryDeps{DB: db, API: hapi, Wallets: wallets}
	if wasmPlugins {
		// Normal priority: idle-priority plugin threads starve on a busy
		// machine (plugintest's advice).
		rt, err := wasm.New(wasm.Options{CacheDir: plugintest.CompileCacheDir(), Calls: hapi,
			CPUShare: plugintest.CPUShare, CPUBurst: plugintest.CPUBurst, NormalPriority: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		deps.Loader = rt
	}
	reg := host.NewRegistry(deps)
	t.Cleanup(func() { reg.Close(context.Background()) })
	if _, err := reg.RegisterBuiltin(embedded.Manifest(), nil, ""); err != nil { // as hearth serve does
		t.Fatal(err)
	}
	if err := addWebhooks(cfg, db, reg, wallets, opts.disableWebhooksAfter); err != nil {
		t.Fatal(err)
	}
	if err := addLNURL(addresses, reg, hapi, led); err != nil {
		t.Fatal(err)
	}
	// The built-ins' background work (the webhooks' delivery), as hearth
	// serve runs it.
	go func() { defer func() { done <- struct{}{} }(); reg.RunBuiltins(ctx, box) }()
	srv := httptest.NewUnstartedServer(api.New(api.Deps{
		Config:    cfg,
		DB:        db,
		Tokens:    tokens,
		OIDC:      verifier,
		Keys:      auth.NewKeys(db),
		Wallets:   wallets,
		Ledger:    led,
		Plugins:   reg,
		Events:    hub,
		Version:   "test",
		BuildTime: "now",
	}))
	srv.Config.RegisterOnShutdown(hub.Close)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() {
		hub.Close() // the streams end, or Close would wait for them
		srv.Close()
		cancel()
		for range 4 {
			<-done
		}
	})
	return &hearth{t: t, srv: srv, URL: srv.URL, db: db}
}

// addWebhooks registers the built-in webhooks plugin as hearth serve does
// (cmd/hearth/webhooks.go): its routes join the API, and it sends through
// an outbound client of its own, the host's guard with the webhooks'
// timeout and response cap. disableAfter, when set, overrides
// webhooks.disable_after_days.
func addWebhooks(cfg config.Config, db *store.DB, reg *host.Registry, wallets *wallet.Service, disableAfter time.Duration) error {
	if disableAfter == 0 {
		disableAfter = time.Duration(cfg.Webhooks.DisableAfterDays) * 24 * time.Hour
	}
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
	p := webhooks.New(webhooks.Deps{
		DB:       db,
		Outbound: out,
		WalletExists: func(ctx context.Context, id string) error {
			_, err := wallets.Get(ctx, id)
			return err
		},
		Config: webhooks.Config{
			RetryWindow:  cfg.Webhooks.RetryWindow.Duration,
			DisableAfter: disableAfter,
			FirstRetry:   cfg.Webhooks.FirstRetry.Duration,
			AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		},
	})
	_, err := reg.AddBuiltin(p.Builtin())
	return err
}

// testDomain is the part after @ of the test server's Lightning Addresses.
const testDomain = "hearth.test"

// newLNURL builds the built-in Lightning Address and LNURL-pay plugin as
// hearth serve does (cmd/hearth/lnurl.go): the outbound guard with the
// LNURL client's timeout and cap, the node as decoder, the [lnurl]
// section's defaults.
func newLNURL(cfg config.Config, db *store.DB, led *ledger.Service, wallets *wallet.Service) (*lnurl.Plugin, error) {
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
	c := lnurl.ConfigOf(cfg.Domain, cfg.PublicURL, lnurl.DefaultSettings(), cfg.Plugins.AllowPrivateHosts)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return lnurl.New(lnurl.Deps{
		DB:       db,
		Outbound: out,
		Decoder:  led.Node(),
		WalletExists: func(ctx context.Context, id string) error {
			_, err := wallets.Get(ctx, id)
			return err
		},
		Config: c,
	}), nil
}

// addLNURL registers the plugin as hearth serve does: its routes join the
// API, it acts through the host API bound to it, and the ledger asks it
// about payment inputs that are no BOLT11 invoice.
func addLNURL(p *lnurl.Plugin, reg *host.Registry, hapi *host.API, led *ledger.Service) error {
	plugin, err := reg.AddBuiltin(p.Builtin())
	if err != nil {
		return err
	}
	p.Bind(hapi.For(plugin))
	p.Register(led)
	return nil
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

func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

func apiKey(key string) []string { return []string{"Api-Key", key} }

func idem(key string) []string { return []string{"Idempotency-Key", key} }
