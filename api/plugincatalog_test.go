package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestPluginCatalogOverHTTP: the catalog's routes answer as api.md says:
// 404 without a catalog; the list with what is installed; an install by
// name (201), an update to a newer version (200), a module whose hash is
// not the listed one (422), a body that names nothing (400).
func TestPluginCatalogOverHTTP(t *testing.T) {
	t.Parallel()
	module := plugintest.Build(t, filepath.Join("..", "host", "testdata", "plugins", "noop"))
	s := sha256.Sum256(module)
	sum := hex.EncodeToString(s[:])
	var version atomic.Value
	version.Store("1.0.0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/noop.wasm" {
			_, _ = w.Write(module)
			return
		}
		v := version.Load().(string)
		m, _ := json.Marshal(map[string]any{"name": "noop", "version": v, "abi": "hearth_v1"})
		bad, _ := json.Marshal(map[string]any{"name": "bad", "version": "1.0.0", "abi": "hearth_v1"})
		_ = json.NewEncoder(w).Encode([]host.CatalogEntry{
			{Name: "noop", Version: v, URL: "http://" + r.Host + "/noop.wasm", SHA256: sum, Manifest: m},
			{Name: "bad", Version: "1.0.0", URL: "http://" + r.Host + "/noop.wasm", SHA256: strings.Repeat("ab", 32), Manifest: bad},
		})
	}))
	defer srv.Close()

	none := newEnvWith(t, storetest.SQLite(t), envOptions{wasm: true}, nil)
	none.do("GET", "/v1/plugins/catalog", nil, bearer(none.adminToken())...).expect(t, 404).problem(t)

	e := newEnvWith(t, storetest.SQLite(t), envOptions{wasm: true}, func(_ *config.Config, d *api.Deps) {
		d.Plugins.(*host.Registry).SetCatalog(host.NewCatalog(srv.URL+"/index.json",
			host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: time.Minute, MaxResponseBytes: 64 << 20})))
	})
	admin := bearer(e.adminToken())
	var list []host.CatalogEntry
	e.do("GET", "/v1/plugins/catalog", nil, admin...).expect(t, 200).decodeJSON(t, &list)
	if len(list) != 2 || list[0].Installed != "" {
		t.Fatalf("the catalog: %+v", list)
	}
	e.do("POST", "/v1/plugins/install", map[string]any{}, admin...).expect(t, 400).problem(t)
	e.do("POST", "/v1/plugins/install", map[string]any{"name": "bad"}, admin...).expect(t, 422).problem(t)
	e.do("POST", "/v1/plugins/install", map[string]any{"name": "noop"}, admin...).expect(t, 201)
	e.do("POST", "/v1/plugins/install", map[string]any{"name": "noop"}, admin...).expect(t, 409).problem(t)
	version.Store("1.0.1")
	e.do("GET", "/v1/plugins/catalog", nil, admin...).expect(t, 200).decodeJSON(t, &list)
	if list[0].Installed != "1.0.0" || !list[0].Update {
		t.Fatalf("a newer version: %+v", list[0])
	}
	var info host.Info
	e.do("POST", "/v1/plugins/install", map[string]any{"name": "noop"}, admin...).expect(t, 200).decodeJSON(t, &info)
	if info.Version != "1.0.1" {
		t.Fatalf("updated to %s", info.Version)
	}
}
