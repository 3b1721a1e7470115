package nwc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/plugintest/apiserver"
	"github.com/hearthwallet/hearth/testkit/logtest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// kit is the NWC plugin over a real ledger, served by the real API, with
// its lead (the relays, the notifications) run by a registry of its own so
// that a test can stop it and start a new plugin (a restarted server).
type kit struct {
	t      *testing.T
	e      *plugintest.Env
	srv    *httptest.Server
	tokens *auth.Tokens
	relay  *nostrtest.Relay
	logs   *logtest.Buffer
	// metrics count the notifications' publications.
	metrics *metrics.Metrics
	// addresses are the wallets' Lightning Addresses, as the lnurl
	// built-in would present them.
	addresses *addressBook
	cfg       nwc.Config
	p         *nwc.Plugin
	stop      func()
}

// fast are the tests' delays.
var fast = nwc.Config{Poll: 20 * time.Millisecond, FirstRetry: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
	Timeout: 5 * time.Second, AllowPrivate: true}

func newKit(t *testing.T, e *plugintest.Env, tune func(*nwc.Config)) *kit {
	t.Helper()
	k := &kit{t: t, e: e, relay: nostrtest.StartRelay(t), cfg: fast, logs: &logtest.Buffer{}, stop: func() {}, metrics: metrics.New("test"),
		addresses: &addressBook{byWallet: map[string]string{}}}
	k.cfg.Relays = []string{k.relay.URL()}
	if tune != nil {
		tune(&k.cfg)
	}
	k.p = k.newPlugin()
	plugin, err := e.Registry.AddBuiltin(k.p.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	k.p.Bind(e.API.For(plugin))
	k.srv = httptest.NewUnstartedServer(nil)
	c := config.Default()
	c.Plugins.AllowPrivateHosts = true
	k.tokens = apiserver.New(e, k.srv, c).Tokens
	t.Cleanup(func() {
		k.stop()
		if t.Failed() {
			t.Logf("the plugin's log:\n%s", k.logs.String())
		}
	})
	k.startLead(k.p)
	return k
}

func (k *kit) newPlugin() *nwc.Plugin {
	k.t.Helper()
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: 5 * time.Second})
	p := nwc.New(nwc.Deps{DB: k.e.DB, Outbound: out, NodeInfo: k.e.Node.Info, Decoder: k.e.Node, Config: k.cfg, Log: k.logs.Logger(),
		Relays: k.metrics.Relays()})
	if err := p.Start(context.Background()); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// startLead runs p's lead until stop.
func (k *kit) startLead(p *nwc.Plugin) {
	reg := host.NewRegistry(host.RegistryDeps{DB: k.e.DB, API: k.e.API})
	plugin, err := reg.AddBuiltin(p.Builtin())
	if err != nil {
		k.t.Fatal(err)
	}
	// The host API asks the newest registry for the built-ins' parts of a
	// wallet: the Lightning Address, which a test's addresses built-in
	// (addressBook) gives.
	if _, err := reg.AddBuiltin(k.addresses.builtin()); err != nil {
		k.t.Fatal(err)
	}
	p.Bind(k.e.API.For(plugin))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); reg.RunBuiltins(ctx, k.e.Outbox) }()
	k.stop = func() { cancel(); <-done }
	if len(k.cfg.Relays) > 0 {
		k.e.Eventually("the plugin listening on its relays", func() bool { return p.Connected() == len(k.cfg.Relays)+len(k.cfg.AppRelays) })
	}
}

// restart stops the lead and starts a new plugin's (a restarted server).
func (k *kit) restart() {
	k.stop()
	k.p = k.newPlugin()
	k.startLead(k.p)
}

type reply struct {
	Code int
	Body []byte
}

func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// do calls the API with a bearer token or an Api-Key.
func (k *kit) do(cred, method, path string, body any) reply {
	k.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, k.srv.URL+path, rd)
	if err != nil {
		k.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(cred) > 3 && cred[:3] == "hk_" {
		req.Header.Set("Api-Key", cred)
	} else if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Code: resp.StatusCode, Body: b}
}

// user is a token with scopes of a new user's wallet holding msat.
func (k *kit) user(id string, msat int64, scopes auth.Scopes) (string, *wallet.Wallet) {
	k.t.Helper()
	w := k.e.Wallet(id, msat)
	tok, err := k.tokens.Issue(id, scopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok, w
}

// connect makes a connection with body through the API and returns it
// with its app.
func (k *kit) connect(token string, body map[string]any) (nwc.Connection, *nostrtest.App) {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/nwc/connections", body)
	if r.Code != http.StatusCreated {
		k.t.Fatalf("creating a connection: %d %s", r.Code, r.Body)
	}
	var c nwc.Connection
	r.decode(k.t, &c)
	return c, nostrtest.Connect(k.t, c.URI)
}

// invoice is a new invoice of amount msat into token's wallet.
func (k *kit) invoice(token string, msat int64) (bolt11, hash string) {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/invoices", map[string]any{"amount_msat": msat, "description": "nwc test"})
	if r.Code != http.StatusCreated {
		k.t.Fatalf("creating an invoice: %d %s", r.Code, r.Body)
	}
	var inv struct {
		LnInvoice struct {
			Bolt11      string `json:"bolt11"`
			PaymentHash string `json:"payment_hash"`
		} `json:"ln_invoice"`
	}
	r.decode(k.t, &inv)
	return inv.LnInvoice.Bolt11, inv.LnInvoice.PaymentHash
}

// addressBook is a built-in that presents wallets' Lightning Addresses
// (wallet:present), as the lnurl built-in does in a server.
type addressBook struct {
	mu       sync.Mutex
	byWallet map[string]string
}

func (b *addressBook) set(walletID, address string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.byWallet[walletID] = address
}

func (b *addressBook) builtin() host.Builtin {
	return host.Builtin{Manifest: &host.Manifest{Name: "addresses", Version: "1.0.0", ABI: host.ABIVersion,
		Scopes: []string{host.PresentWallets}},
		PresentWallets: func(_ context.Context, ws []*wallet.Wallet) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			for _, w := range ws {
				if a, ok := b.byWallet[w.ID]; ok {
					w.LnAddress = &a
				}
			}
			return nil
		}}
}

// publications is the count of the NWC notifications' publications with
// outcome (published, failed, given_up).
func (k *kit) publications(outcome string) float64 {
	k.t.Helper()
	families, err := k.metrics.Registry().Gather()
	if err != nil {
		k.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "hearth_relay_publications_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == "nwc_notification" && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
