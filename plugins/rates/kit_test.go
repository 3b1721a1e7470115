package rates_test

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
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/plugins/rates"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/plugintest/apiserver"
)

// kit is the plugin built by its descriptor in a host over a real ledger,
// reading a local price server, served by the real API over HTTP.
type kit struct {
	t      *testing.T
	e      *plugintest.Env
	srv    *httptest.Server
	prices *priceServer
	clock  *clock
	tokens *auth.Tokens
}

func newKit(t *testing.T, db *store.DB, tune func(*rates.Settings)) *kit {
	t.Helper()
	k := &kit{t: t, e: plugintest.New(t, db, plugintest.Options{AllowPrivate: true}), prices: newPriceServer(t),
		clock: &clock{now: time.Now()}}
	d := rates.Descriptor(func(c *rates.Config) {
		s := rates.DefaultSettings()
		s.Sources = k.prices.sources()
		if tune != nil {
			tune(&s)
		}
		cfg, err := rates.ConfigOf(s)
		if err != nil {
			t.Fatal(err)
		}
		*c = cfg
		c.Now = k.clock.Now
	})
	if _, err := k.e.Registry.AddFeature(context.Background(), d, k.e.App.Environment()); err != nil {
		t.Fatal(err)
	}
	k.srv = httptest.NewUnstartedServer(nil)
	c := config.Default()
	c.Plugins.AllowPrivateHosts = true
	k.tokens = apiserver.New(k.e, k.srv, c).Tokens
	return k
}

// response is an answer over HTTP.
type response struct {
	Code int
	Body []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// expect checks the status and, for an error, its code.
func (r response) expect(t *testing.T, status int, code string) response {
	t.Helper()
	if r.Code != status {
		t.Fatalf("status %d, want %d: %s", r.Code, status, r.Body)
	}
	if code != "" {
		var e struct {
			Code string `json:"code"`
		}
		r.json(t, &e)
		if e.Code != code {
			t.Fatalf("error code %q, want %q: %s", e.Code, code, r.Body)
		}
	}
	return r
}

// do sends a request as token ("" for none), body as JSON.
func (k *kit) do(token, method, path, body string) response {
	k.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, k.srv.URL+path, r)
	if err != nil {
		k.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := k.srv.Client().Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{Code: resp.StatusCode, Body: b}
}

// user returns a token of userID with every scope, its wallet funded with
// msat.
func (k *kit) user(userID string, msat int64) (string, string) {
	k.t.Helper()
	w := k.e.Wallet(userID, msat)
	tok, err := k.tokens.Issue(userID, auth.AllScopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok, w.ID
}
