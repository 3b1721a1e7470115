package lnurl_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/plugintest/apiserver"
)

// kit is the plugin registered in a host over a real ledger, served by
// the real API over HTTP, as an outside LNURL wallet and Hearth's own
// clients call it.
type kit struct {
	t      *testing.T
	e      *plugintest.Env
	p      *lnurl.Plugin
	srv    *httptest.Server
	tokens *auth.Tokens
	cfg    lnurl.Config
}

// newKit serves the plugin. The instance's domain and public URL are
// cfg's; empty, they are the test server's own address.
func newKit(t *testing.T, e *plugintest.Env, cfg lnurl.Config, mutate func(*config.Config)) *kit {
	t.Helper()
	k := &kit{t: t, e: e}
	k.srv = httptest.NewUnstartedServer(nil)
	addr := k.srv.Listener.Addr().String()
	if cfg.Domain == "" {
		cfg.Domain = addr
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + addr
	}
	cfg.AllowPrivate = true
	k.cfg = cfg
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: 5 * time.Second})
	k.p = lnurl.New(lnurl.Deps{DB: e.DB, Outbound: out, Decoder: e.Node, Config: cfg,
		WalletExists: func(ctx context.Context, id string) error { _, err := e.Wallets.Get(ctx, id); return err }})
	plugin, err := e.Registry.AddBuiltin(k.p.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	k.p.Bind(e.API.For(plugin))
	if err := k.p.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := config.Default()
	c.Domain, c.PublicURL = cfg.Domain, cfg.PublicURL
	c.Plugins.AllowPrivateHosts = true
	if mutate != nil {
		mutate(&c)
	}
	k.tokens = apiserver.New(e, k.srv, c).Tokens
	return k
}

// response is an answer over HTTP.
type response struct {
	Code   int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// do sends a request as token ("" for none); body is sent as JSON.
func (k *kit) do(token, method, path string, body any, headers ...string) response {
	k.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			k.t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = k.srv.URL + path
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		k.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{Code: resp.StatusCode, Header: resp.Header, Body: b}
}

// user returns a token of userID with scopes (every scope when none),
// and the user's wallet, funded with msat.
func (k *kit) user(userID string, msat int64, scopes ...auth.Scope) (string, *wallet.Wallet) {
	k.t.Helper()
	w := k.e.Wallet(userID, msat)
	ss := auth.AllScopes
	if len(scopes) > 0 {
		ss = auth.NewScopes(scopes...)
	}
	tok, err := k.tokens.Issue(userID, ss)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok, w
}

// admin returns the admin's token.
func (k *kit) admin() string {
	k.t.Helper()
	tok, err := k.tokens.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok
}

// register registers username for token's wallet, expecting 201.
func (k *kit) register(token, username string) lnurl.Address {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/lightning-address", map[string]any{"username": username})
	if r.Code != http.StatusCreated {
		k.t.Fatalf("registering %s: %d %s", username, r.Code, r.Body)
	}
	var a lnurl.Address
	r.json(k.t, &a)
	return a
}
