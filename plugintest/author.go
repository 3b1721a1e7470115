package plugintest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
)

// What a plugin's tests need, without naming the server's packages: a
// host per database, and the calls that drive a plugin and the ledger
// around it. Each fails the test on an unexpected error.

// Each runs fn as a subtest on a host over every database under test:
// SQLite, and PostgreSQL when HEARTH_TEST_POSTGRES_URL names a server.
func Each(t *testing.T, o Options, fn func(t *testing.T, e *Env)) {
	storetest.Each(t, func(t *testing.T, db *store.DB) { fn(t, New(t, db, o)) })
}

// SQLite returns a host over a fresh SQLite database.
func SQLite(t testing.TB, o Options) *Env { return New(t, storetest.SQLite(t), o) }

// Configure sets plugin name's configuration: cfg is a JSON object, as
// []byte or string, or a value marshalled to one.
func (e *Env) Configure(name string, cfg any) *host.Info {
	e.T.Helper()
	var raw []byte
	switch c := cfg.(type) {
	case []byte:
		raw = c
	case string:
		raw = []byte(c)
	default:
		b, err := json.Marshal(cfg)
		if err != nil {
			e.T.Fatalf("configuring plugin %s: %v", name, err)
		}
		raw = b
	}
	info, err := e.Registry.Configure(context.Background(), name, raw)
	if err != nil {
		e.T.Fatalf("configuring plugin %s: %v", name, err)
	}
	return info
}

// Request sends plugin name an HTTP request to one of its routes, as the
// server forwards it, and returns the plugin's answer.
func (e *Env) Request(name string, req host.PluginRequest) *host.PluginResponse {
	e.T.Helper()
	resp, err := e.Registry.Serve(context.Background(), name, req)
	if err != nil {
		e.T.Fatalf("%s %s of plugin %s: %v", req.Method, req.Path, name, err)
	}
	return resp
}

// RequestAs sends plugin name a request to one of its authenticated
// routes as user userID (the owner of their wallet) holding scopes, as the
// server forwards it once it has authenticated the caller: a hearth_v2
// plugin learns who calls, and with caller:act its calls act for them.
func (e *Env) RequestAs(name, userID string, scopes []string, method, path string, body []byte) *host.PluginResponse {
	e.T.Helper()
	w, err := e.Wallets.Ensure(context.Background(), userID)
	if err != nil {
		e.T.Fatal(err)
	}
	var held auth.Scopes
	for _, n := range scopes {
		s, ok := auth.ParseScope(n)
		if !ok {
			e.T.Fatalf("unknown scope %q", n)
		}
		held |= auth.NewScopes(s)
	}
	caller := host.CallerOf(&host.Principal{UserID: userID, WalletID: w.ID, Scopes: held})
	return e.Request(name, host.PluginRequest{Method: method, Path: path, Body: body, Caller: caller})
}

// Post sends plugin name a public POST of path with body.
func (e *Env) Post(name, path string, body []byte) *host.PluginResponse {
	e.T.Helper()
	return e.Request(name, host.PluginRequest{Method: "POST", Path: path, Body: body})
}

// Get sends plugin name a GET of path (starting with "/").
func (e *Env) Get(name, path string) *host.PluginResponse {
	e.T.Helper()
	return e.Request(name, host.PluginRequest{Method: "GET", Path: path})
}

// CreateInvoice makes an invoice of msat into walletID, committing to
// descriptionHash when it is not nil (as an LNURL-pay server does). It
// returns an error rather than failing the test, so that an HTTP handler
// of the test may call it.
func (e *Env) CreateInvoice(walletID string, msat int64, descriptionHash []byte) (*ledger.Invoice, error) {
	return e.Ledger.CreateInvoice(context.Background(), walletID, ledger.NewInvoice{AmountMsat: msat, DescriptionHash: descriptionHash})
}

// UserInvoice makes an invoice of msat into walletID as its owner would
// through the API: with description, and no plugin's tag.
func (e *Env) UserInvoice(walletID string, msat int64, description string) *ledger.Invoice {
	e.T.Helper()
	inv, err := e.Ledger.CreateInvoice(context.Background(), walletID, ledger.NewInvoice{AmountMsat: msat, Description: &description})
	if err != nil {
		e.T.Fatalf("an invoice of %d msat into %s: %v", msat, walletID, err)
	}
	return inv
}

// Pay pays input (a BOLT11 invoice, a Lightning Address…) from walletID.
func (e *Env) Pay(walletID, input string) *ledger.Payment {
	e.T.Helper()
	p, _, err := e.Ledger.Pay(context.Background(), walletID, ledger.PayRequest{Input: input})
	if err != nil {
		e.T.Fatalf("paying %s from %s: %v", input, walletID, err)
	}
	return p
}

// CheckLedger fails the test unless every wallet's balances add up.
func (e *Env) CheckLedger() {
	e.T.Helper()
	breaches, err := e.Ledger.Check(context.Background())
	if err != nil || len(breaches) > 0 {
		e.T.Fatalf("ledger check: %+v %v", breaches, err)
	}
}
