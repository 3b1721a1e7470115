package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
)

type thingRequest struct {
	Name *string `json:"name"`
}

type thingAnswer struct {
	Caller *host.Principal   `json:"caller"`
	Params map[string]string `json:"params"`
	Name   string            `json:"name,omitempty"`
}

// things is a built-in with a route of each access rule.
func things() host.Builtin {
	echo := func(_ context.Context, req *host.BuiltinRequest) (any, error) {
		a := thingAnswer{Caller: req.Caller, Params: req.Params}
		if b, ok := req.Body.(*thingRequest); ok && b.Name != nil {
			a.Name = *b.Name
		}
		if a.Params["id"] == "missing" {
			return nil, fault.New(fault.NotFound, "thing_not_found", "Thing not found")
		}
		return a, nil
	}
	return host.Builtin{
		Manifest: &host.Manifest{Name: "things", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.ServeAPI}},
		Routes: []host.BuiltinRoute{
			{Method: "GET", Path: "/v1/me/things/{id}", Access: host.User, Scope: auth.ReadWallet, Status: 200, Resp: thingAnswer{}, Handle: echo},
			{Method: "POST", Path: "/v1/me/things", Access: host.User, Scope: auth.WriteWallet, Status: 201, Body: thingRequest{}, Resp: thingAnswer{}, Handle: echo},
			{Method: "DELETE", Path: "/v1/me/things/{id}", Access: host.User, Scope: auth.WriteWallet, Status: 204, Handle: echo},
			{Method: "GET", Path: "/v1/things", Access: host.Admin, Scope: auth.ReadWallet, Status: 200, Resp: thingAnswer{}, Handle: echo},
			{Method: "GET", Path: "/v1/public-things", Access: host.Public, Status: 200, Resp: thingAnswer{}, Handle: echo},
		},
	}
}

// A built-in's routes get the checks of every route: authentication,
// scope, admin, body decoding and text checks, JSON errors; the handler
// gets the caller; the OpenAPI document lists them with their scope.
func TestBuiltinRoutes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, func(_ *config.Config, d *api.Deps) {
			if _, err := d.Plugins.(*host.Registry).AddBuiltin(things()); err != nil {
				t.Fatal(err)
			}
		})
		reader := apiKey(e.makeKey("bob", auth.NewScopes(auth.ReadWallet)))
		writer := apiKey(e.makeKey("bob", auth.AllScopes))
		admin := bearer(e.adminToken())
		bobWallet, err := e.wallets.Ensure(context.Background(), "bob")
		if err != nil {
			t.Fatal(err)
		}

		var a thingAnswer
		e.do("GET", "/v1/me/things/7", nil, reader...).expect(t, 200).decodeJSON(t, &a)
		if a.Caller == nil || a.Caller.UserID != "bob" || a.Caller.WalletID != bobWallet.ID || a.Caller.Admin || a.Params["id"] != "7" {
			t.Fatalf("answer %+v", a)
		}
		e.do("POST", "/v1/me/things", map[string]string{"name": "x"}, writer...).expect(t, 201).decodeJSON(t, &a)
		if a.Name != "x" {
			t.Fatalf("body not passed: %+v", a)
		}
		e.do("DELETE", "/v1/me/things/7", nil, writer...).expect(t, 204)
		e.do("GET", "/v1/public-things", nil).expect(t, 200).decodeJSON(t, &a)
		if a.Caller != nil {
			t.Fatalf("a public route got a caller: %+v", a)
		}
		e.do("GET", "/v1/things", nil, admin...).expect(t, 200).decodeJSON(t, &a)
		if !a.Caller.Admin {
			t.Fatalf("admin caller %+v", a.Caller)
		}

		for _, c := range []struct {
			name, method, path string
			body               any
			headers            []string
			status             int
		}{
			{"no credential", "GET", "/v1/me/things/7", nil, nil, 401},
			{"missing scope", "POST", "/v1/me/things", map[string]string{"name": "x"}, reader, 403},
			{"not the admin", "GET", "/v1/things", nil, writer, 403},
			{"handler fault", "GET", "/v1/me/things/missing", nil, reader, 404},
			{"malformed JSON", "POST", "/v1/me/things", `{"name":`, writer, 400},
			{"unknown field", "POST", "/v1/me/things", `{"name":"x","Name":"y"}`, writer, 400},
			{"wrong type", "POST", "/v1/me/things", `{"name":1}`, writer, 400},
			{"control character", "POST", "/v1/me/things", "{\"name\":\"a\\u0000b\"}", writer, 400},
			{"too large", "POST", "/v1/me/things", `{"name":"` + strings.Repeat("a", 70<<10) + `"}`, writer, 413},
			{"unknown method", "PUT", "/v1/me/things/7", nil, writer, 405},
		} {
			r := e.do(c.method, c.path, c.body, c.headers...)
			if r.Code != c.status {
				t.Errorf("%s: %d %s, want %d", c.name, r.Code, r.Body, c.status)
				continue
			}
			r.problem(t)
		}
		r := e.do("POST", "/v1/me/things", nil, append([]string{"Content-Type", "text/plain"}, writer...)...)
		if r.Code != http.StatusUnsupportedMediaType {
			t.Errorf("text/plain body: %d", r.Code)
		}

		var doc struct {
			Paths map[string]map[string]map[string]any `json:"paths"`
		}
		e.do("GET", "/v1/openapi.json", nil).expect(t, 200).decodeJSON(t, &doc)
		if op := doc.Paths["/v1/me/things/{id}"]["get"]; op == nil || op["x-required-scope"] != "read:wallet" {
			t.Fatalf("document: %v", doc.Paths["/v1/me/things/{id}"])
		}
		if op := doc.Paths["/v1/things"]["get"]; op == nil || op["x-admin-only"] != true {
			t.Fatalf("document: %v", doc.Paths["/v1/things"])
		}
		if b, _ := json.Marshal(doc.Paths["/v1/me/things"]["post"]["requestBody"]); !strings.Contains(string(b), "ThingRequest") {
			t.Fatalf("request body not documented: %s", b)
		}
	})
}
