package api_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

func TestPluginLifecycleOverHTTP(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{wasm: true}, nil)
		admin := bearer(e.adminToken())
		module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "hostile"))
		sum := sha256.Sum256(module)
		manifest := json.RawMessage(`{"name":"hostile","version":"1.0.0","abi":"hearth_v1",
			"scopes":["read:wallet","write:transaction"],
			"routes":[{"method":"GET","path":"/escalate","public":true},{"method":"GET","path":"/loop","scope":"read:transaction"}],
			"config":{"mode":{"type":"string","required":true}},"limits":{"timeout_ms":200}}`)
		install := map[string]any{"manifest": manifest, "wasm": base64.StdEncoding.EncodeToString(module), "sha256": hex.EncodeToString(sum[:])}

		bad := map[string]any{"manifest": manifest, "wasm": install["wasm"], "sha256": "00"}
		e.do("POST", "/v1/plugins", bad, admin...).expect(t, 422).problem(t)
		e.do("POST", "/v1/plugins", install, admin...).expect(t, 201)
		e.do("POST", "/v1/plugins", install, admin...).expect(t, 409).problem(t)

		// Nothing runs before it is enabled; enabling needs the required config.
		e.do("GET", "/v1/plugins/hostile/escalate", nil).expect(t, 503).problem(t)
		me := e.do("GET", "/v1/me", nil, admin...).expect(t, 200)
		var w struct {
			ID string `json:"id"`
		}
		me.decodeJSON(t, &w)
		e.do("POST", "/v1/plugins/hostile/enable", map[string]any{"scopes": []string{"read:wallet"}, "wallet_id": w.ID}, admin...).expect(t, 422).problem(t)
		e.do("PUT", "/v1/plugins/hostile/config", map[string]any{"mode": 5}, admin...).expect(t, 422).problem(t)
		e.do("PUT", "/v1/plugins/hostile/config", map[string]any{"mode": "none"}, admin...).expect(t, 200)
		// Granting an undeclared scope: 422.
		e.do("POST", "/v1/plugins/hostile/enable", map[string]any{"scopes": []string{"write:wallet"}, "wallet_id": w.ID}, admin...).expect(t, 422).problem(t)
		var info host.Info
		e.do("POST", "/v1/plugins/hostile/enable", map[string]any{"scopes": []string{"read:wallet"}, "wallet_id": w.ID}, admin...).expect(t, 200).decodeJSON(t, &info)
		if info.State != host.Enabled || len(info.Granted) != 1 {
			t.Fatalf("enabled: %+v", info)
		}

		// The public route answers anyone; the plugin sees only its grant.
		var got map[string]string
		e.do("GET", "/v1/plugins/hostile/escalate", nil).expect(t, 200).decodeJSON(t, &got)
		if got["wallet"] != "ok" || got["create_invoice"] != host.ErrPermission {
			t.Fatalf("escalate: %v", got)
		}
		// The guarded route: 401, 403, then the plugin's own failure (it loops): 503.
		e.do("GET", "/v1/plugins/hostile/loop", nil).expect(t, 401).problem(t)
		e.do("GET", "/v1/plugins/hostile/loop", nil, apiKey(e.makeKey("mallory", auth.NewScopes(auth.ReadWallet)))...).expect(t, 403).problem(t)
		e.do("GET", "/v1/plugins/hostile/loop", nil, apiKey(e.makeKey("mallory", auth.NewScopes(auth.ReadTransaction)))...).expect(t, 503).problem(t)
		e.do("GET", "/v1/plugins/hostile/nowhere", nil).expect(t, 404).problem(t)
		e.do("GET", "/v1/plugins/ghost/x", nil).expect(t, 404).problem(t)

		var logs []host.LogEntry
		e.do("GET", "/v1/plugins/hostile/logs", nil, admin...).expect(t, 200).decodeJSON(t, &logs)
		if len(logs) == 0 {
			t.Fatal("no logs")
		}
		var list []host.Info
		e.do("GET", "/v1/plugins", nil, admin...).expect(t, 200).decodeJSON(t, &list)
		list = slices.DeleteFunc(list, func(i host.Info) bool { return i.Kind == "builtin" }) // the embedded node
		if len(list) != 1 || list[0].Name != "hostile" || list[0].Faults != 1 {
			t.Fatalf("list: %+v", list)
		}
		e.do("POST", "/v1/plugins/hostile/disable", nil, admin...).expect(t, 200)
		e.do("GET", "/v1/plugins/hostile/escalate", nil).expect(t, 503).problem(t)
		e.do("DELETE", "/v1/plugins/hostile", nil, admin...).expect(t, 204)
		e.do("GET", "/v1/plugins/hostile", nil, admin...).expect(t, 404).problem(t)
	})
}

// TestWellKnownRoutes: a plugin serves a path under /.well-known/ at the
// server's root only once granted its name, one plugin per name, never
// under /v1/plugins/{name}, and only while enabled.
func TestWellKnownRoutes(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	e := newEnvWith(t, db, envOptions{wasm: true}, nil)
	admin := bearer(e.adminToken())
	module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "hostile"))
	sum := sha256.Sum256(module)
	install := func(name string) {
		manifest := json.RawMessage(`{"name":"` + name + `","version":"1.0.0","abi":"hearth_v1",
			"scopes":["well-known:hearth-test"],
			"routes":[{"method":"GET","path":"/.well-known/hearth-test/*","public":true}]}`)
		e.do("POST", "/v1/plugins", map[string]any{"manifest": manifest, "wasm": base64.StdEncoding.EncodeToString(module), "sha256": hex.EncodeToString(sum[:])}, admin...).expect(t, 201)
	}
	install("first")
	install("second")

	e.do("GET", "/.well-known/hearth-test/alice", nil).expect(t, 404).problem(t)
	e.do("POST", "/v1/plugins/first/enable", map[string]any{"scopes": []string{}}, admin...).expect(t, 200)
	e.do("GET", "/.well-known/hearth-test/alice", nil).expect(t, 404).problem(t) // declared, not granted
	e.do("POST", "/v1/plugins/first/enable", map[string]any{"scopes": []string{"well-known:hearth-test"}}, admin...).expect(t, 200)
	got := e.do("GET", "/.well-known/hearth-test/alice", nil).expect(t, 200)
	if string(got.Body) != "/.well-known/hearth-test/alice" {
		t.Fatalf("the plugin saw the path %q", got.Body)
	}
	e.do("GET", "/.well-known/other/alice", nil).expect(t, 404).problem(t)
	e.do("POST", "/.well-known/hearth-test/alice", nil).expect(t, 404).problem(t) // no such route
	e.do("GET", "/v1/plugins/first/.well-known/hearth-test/alice", nil).expect(t, 404).problem(t)

	// One plugin per name.
	e.do("POST", "/v1/plugins/second/enable", map[string]any{"scopes": []string{"well-known:hearth-test"}}, admin...).expect(t, 409).problem(t)
	e.do("POST", "/v1/plugins/first/disable", nil, admin...).expect(t, 200)
	e.do("GET", "/.well-known/hearth-test/alice", nil).expect(t, 404).problem(t)
	e.do("POST", "/v1/plugins/second/enable", map[string]any{"scopes": []string{"well-known:hearth-test"}}, admin...).expect(t, 200)
	e.do("GET", "/.well-known/hearth-test/bob", nil).expect(t, 200)
}

// TestPluginGrantWithinCallersScopes: a caller grants a plugin only the
// permission scopes it holds itself (as it creates keys only with them):
// an admin key with write:wallet alone may install and enable a plugin,
// but not hand it write:transaction or read:wallet; a server capability
// such as http:outbound:<host> needs no permission scope.
func TestPluginGrantWithinCallersScopes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{wasm: true}, nil)
		narrow := apiKey(e.makeKey(auth.AdminUserID, auth.NewScopes(auth.WriteWallet)))
		wide := apiKey(e.makeKey(auth.AdminUserID, auth.NewScopes(auth.WriteWallet, auth.WriteTransaction)))
		module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "hostile"))
		sum := sha256.Sum256(module)
		manifest := json.RawMessage(`{"name":"hostile","version":"1.0.0","abi":"hearth_v1",
			"scopes":["read:wallet","write:transaction","http:outbound:example.com"],
			"config":{"mode":{"type":"string","default":"none"}}}`)
		install := map[string]any{"manifest": manifest, "wasm": base64.StdEncoding.EncodeToString(module), "sha256": hex.EncodeToString(sum[:])}
		e.do("POST", "/v1/plugins", install, narrow...).expect(t, 201)
		w, err := e.wallets.Ensure(t.Context(), "victim")
		if err != nil {
			t.Fatal(err)
		}
		enable := func(scopes ...string) map[string]any {
			return map[string]any{"scopes": scopes, "wallet_id": w.ID}
		}

		for _, scopes := range [][]string{{"write:transaction"}, {"read:wallet"}, {"http:outbound:example.com", "write:transaction"}} {
			p := e.do("POST", "/v1/plugins/hostile/enable", enable(scopes...), narrow...).expect(t, 422).problem(t)
			if p.Code != "permission_exceeded" {
				t.Fatalf("granting %v with write:wallet alone: code %q", scopes, p.Code)
			}
		}
		var info host.Info
		e.do("GET", "/v1/plugins/hostile", nil, bearer(e.adminToken())...).expect(t, 200).decodeJSON(t, &info)
		if info.State == host.Enabled || len(info.Granted) != 0 {
			t.Fatalf("a refused grant took effect: %+v", info)
		}

		e.do("POST", "/v1/plugins/hostile/enable", enable("http:outbound:example.com"), narrow...).expect(t, 200).decodeJSON(t, &info)
		if info.State != host.Enabled || len(info.Granted) != 1 {
			t.Fatalf("enabled with a capability: %+v", info)
		}
		e.do("POST", "/v1/plugins/hostile/enable", enable("write:transaction"), wide...).expect(t, 200).decodeJSON(t, &info)
		if len(info.Granted) != 1 || info.Granted[0] != "write:transaction" {
			t.Fatalf("granted by a key holding write:transaction: %+v", info)
		}
		// A narrower caller cannot re-enable it with what it lacks either.
		e.do("POST", "/v1/plugins/hostile/enable", enable("write:transaction"), narrow...).expect(t, 422).problem(t)
	})
}

// TestPluginConfigSecretsOverHTTP: on both databases, PUT .../config
// leaving a secret out keeps its stored value (the stored config says so,
// while the API shows it masked), the mask sent back is refused, a new
// value replaces it, null clears an optional secret and "" an optional
// string; the OpenAPI document says so.
func TestPluginConfigSecretsOverHTTP(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, envOptions{wasm: true}, nil)
		admin := bearer(e.adminToken())
		module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "hostile"))
		sum := sha256.Sum256(module)
		manifest := json.RawMessage(`{"name":"vault","version":"1.0.0","abi":"hearth_v1",
			"config":{"note":{"type":"string"},"key":{"type":"string","secret":true,"required":true},
				"token":{"type":"string","secret":true}}}`)
		e.do("POST", "/v1/plugins", map[string]any{"manifest": manifest, "wasm": base64.StdEncoding.EncodeToString(module),
			"sha256": hex.EncodeToString(sum[:])}, admin...).expect(t, 201)
		stored := func() string {
			t.Helper()
			var cfg string
			if err := db.R.NewSelect().Table("plugins").Column("config").Where("name = ?", "vault").Scan(t.Context(), &cfg); err != nil {
				t.Fatal(err)
			}
			return cfg
		}
		put := func(body string, status int, want string) {
			t.Helper()
			var info host.Info
			r := e.do("PUT", "/v1/plugins/vault/config", json.RawMessage(body), admin...).expect(t, status)
			if status != 200 {
				r.problem(t)
			} else {
				r.decodeJSON(t, &info)
				var shown map[string]any
				if err := json.Unmarshal(info.Config, &shown); err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"key", "token"} {
					if v, ok := shown[k]; ok && v != host.ConfigMask {
						t.Fatalf("%s: the API shows %s as %v", body, k, v)
					}
				}
			}
			if got := stored(); got != want {
				t.Fatalf("after %s: stored %s, want %s", body, got, want)
			}
		}
		put(`{"note":"hi","key":"k1","token":"t1"}`, 200, `{"key":"k1","note":"hi","token":"t1"}`)
		put(`{"note":"hello"}`, 200, `{"key":"k1","note":"hello","token":"t1"}`)
		var info host.Info
		e.do("GET", "/v1/plugins/vault", nil, admin...).expect(t, 200).decodeJSON(t, &info)
		if string(info.Config) != `{"key":"********","note":"hello","token":"********"}` {
			t.Fatalf("the API shows %s", info.Config)
		}
		put(`{"note":"hello","key":"********"}`, 422, `{"key":"k1","note":"hello","token":"t1"}`)
		put(`{"key":null}`, 422, `{"key":"k1","note":"hello","token":"t1"}`)
		put(`{"note":"hello","key":"k2"}`, 200, `{"key":"k2","note":"hello","token":"t1"}`)
		put(`{"note":"","token":null}`, 200, `{"key":"k2"}`)

		var doc struct {
			Paths map[string]map[string]struct{ Description string } `json:"paths"`
		}
		e.do("GET", "/v1/openapi.json", nil).expect(t, 200).decodeJSON(t, &doc)
		if d := doc.Paths["/v1/plugins/{name}/config"]["put"].Description; !strings.Contains(d, "keeps its stored value when left out") {
			t.Fatalf("the OpenAPI description of PUT config: %q", d)
		}
	})
}
