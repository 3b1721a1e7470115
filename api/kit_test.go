package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
	"github.com/hearthwallet/hearth/plugintest"
)

// env is one Hearth server over a test database, driven in-process.
type env struct {
	t       testing.TB
	cfg     config.Config
	db      *store.DB
	tokens  *auth.Tokens
	keys    *auth.Keys
	wallets *wallet.Service
	ledger  *ledger.Service
	node    *embedded.Node
	srv     *api.Server
}

// newEnv builds a server on db; mutate, when given, adjusts the config and
// deps before the server is built.
func newEnv(t testing.TB, db *store.DB, mutate func(*config.Config, *api.Deps)) *env {
	t.Helper()
	return newEnvWith(t, db, envOptions{}, mutate)
}

// envOptions add parts to a test server.
type envOptions struct {
	// wasm gives its registry a runtime that runs WebAssembly plugins.
	wasm bool
	// events gives it the event outbox and its live stream.
	events bool
	// metrics, when set, is the registry its parts count into; else
	// they count into one of their own, unless noMetrics.
	metrics   *metrics.Metrics
	noMetrics bool
}

// newEnvWith builds a server on db as `hearth serve` builds it (app.New,
// the embedded node, no built-in plugin), with the parts o adds; mutate,
// when given, adjusts the config and deps of the API before it is built.
func newEnvWith(t testing.TB, db *store.DB, o envOptions, mutate func(*config.Config, *api.Deps)) *env {
	t.Helper()
	a, err := app.New(context.Background(), config.Default(), db, app.Options{
		Builtins: []app.Builtin{app.EmbeddedNode()},
		NoWasm:   !o.wasm,
		// Normal priority: these tests are about the API, and must pass on
		// a machine other processes keep busy, where threads of the lowest
		// priority starve (host/wasm tests the priority itself).
		Wasm: func(w *wasm.Options) {
			w.CacheDir, w.CPUShare, w.CPUBurst, w.NormalPriority = plugintest.CompileCacheDir(), plugintest.CPUShare, plugintest.CPUBurst, true
		},
		NoOutbox:  !o.events,
		Metrics:   o.metrics,
		NoMetrics: o.noMetrics,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	// The node's settlements are listened to before any test can pay.
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	d := server.Deps(a, "test", "now")
	if mutate != nil {
		mutate(&d.Config, &d)
	}
	return &env{t: t, cfg: d.Config, db: db, tokens: d.Tokens, keys: d.Keys, wallets: d.Wallets,
		ledger: a.Ledger, node: a.Node.(*embedded.Node), srv: api.New(d)}
}

// response is a recorded answer.
type response struct {
	Code   int
	Header http.Header
	Body   []byte
}

// do sends a request; body is a string sent as is, or a value sent as JSON.
// headers alternate name, value.
func (e *env) do(method, path string, body any, headers ...string) response {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		r = bytes.NewReader(buf)
	}
	req := httptest.NewRequest(method, path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return response{Code: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// bearer returns the Authorization header pair for token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// apiKey returns the Api-Key header pair.
func apiKey(key string) []string { return []string{"Api-Key", key} }

// adminToken is a sign-in token of the admin, with every scope.
func (e *env) adminToken() string {
	e.t.Helper()
	tok, err := e.tokens.Issue(auth.AdminUserID, auth.AllScopes)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// makeKey creates an API key for userID holding scopes, made by the admin,
// and returns its secret.
func (e *env) makeKey(userID string, scopes auth.Scopes) string {
	e.t.Helper()
	admin := &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true, Method: auth.MethodJWT}
	k, err := e.keys.Create(context.Background(), admin, auth.NewKey{UserID: userID, Name: "test", Permissions: scopes.Names()})
	if err != nil {
		e.t.Fatal(err)
	}
	return k.Key
}

// decodeJSON unmarshals the body into v.
func (r response) decodeJSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %q: %v", r.Body, err)
	}
}

// expect fails the test unless the status is want.
func (r response) expect(t testing.TB, want int) response {
	t.Helper()
	if r.Code != want {
		t.Fatalf("status = %d, want %d; body %s", r.Code, want, r.Body)
	}
	return r
}

// problem decodes an error body and checks its shape against the status.
func (r response) problem(t testing.TB) api.Problem {
	t.Helper()
	var p api.Problem
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("error body %q is not {status, reason, code}: %v", r.Body, err)
	}
	if want := fmt.Sprintf("%d %s", r.Code, http.StatusText(r.Code)); p.Status != want {
		t.Fatalf("status field %q, want %q", p.Status, want)
	}
	if p.Reason == "" || p.Code == "" {
		t.Fatalf("error body %q lacks a reason or code", r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type = %q", ct)
	}
	return p
}
