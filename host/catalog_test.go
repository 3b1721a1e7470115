package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// index is a catalog server: its entries, and the modules they name.
type index struct {
	mu      sync.Mutex
	entries []host.CatalogEntry
	modules map[string][]byte // by path
}

func (ix *index) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if r.URL.Path == "/index.json" {
		_ = json.NewEncoder(w).Encode(ix.entries)
		return
	}
	if b, ok := ix.modules[r.URL.Path]; ok {
		_, _ = w.Write(b)
		return
	}
	http.NotFound(w, r)
}

// publish lists name at version with scopes, its module served at path
// (sum its listed sha256).
func (ix *index) publish(base, name, version, path, sum string, scopes ...string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	m, _ := json.Marshal(map[string]any{"name": name, "version": version, "abi": "hearth_v1", "scopes": scopes,
		"events": []string{"invoice.settled"}})
	for i, e := range ix.entries {
		if e.Name == name {
			ix.entries = append(ix.entries[:i], ix.entries[i+1:]...)
			break
		}
	}
	ix.entries = append(ix.entries, host.CatalogEntry{Name: name, Version: version, Description: name + " plugin",
		URL: base + path, SHA256: sum, Manifest: m})
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func faultCode(err error) string {
	var f *fault.Error
	if errors.As(err, &f) {
		return f.Code
	}
	return ""
}

// TestCatalogInstallsAndUpdates: on both databases, the catalog lists its
// plugins with what is installed; a plugin installs by name; a newer
// version shows as an update and, asking for no more, keeps its grant and
// runs; one that asks for more is left installed for the admin to enable;
// a module whose hash is not the listed one installs nothing; an older
// version, and a name the catalog lacks, are refused.
func TestCatalogInstallsAndUpdates(t *testing.T) {
	t.Parallel()
	noop := plugintest.Build(t, "testdata/plugins/noop")
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		ctx := context.Background()
		ix := &index{modules: map[string][]byte{"/noop.wasm": noop, "/evil.wasm": append([]byte{}, noop...)}}
		srv := httptest.NewServer(ix)
		defer srv.Close()
		e.Registry.SetCatalog(host.NewCatalog(srv.URL+"/index.json", host.NewOutbound(host.OutboundConfig{AllowPrivate: true,
			Timeout: time.Minute, MaxResponseBytes: 64 << 20})))
		ix.publish(srv.URL, "noop", "1.0.0", "/noop.wasm", sum(noop), "read:transaction")
		ix.publish(srv.URL, "evil", "1.0.0", "/evil.wasm", strings.Repeat("0", 64), "read:transaction")

		list, err := e.Registry.Catalog(ctx)
		if err != nil || len(list) != 2 || list[0].Installed != "" {
			t.Fatalf("the catalog: %+v %v", list, err)
		}
		if _, updated, err := e.Registry.InstallFrom(ctx, host.InstallSource{Name: "noop"}); err != nil || updated {
			t.Fatalf("installing by name: updated %v, %v", updated, err)
		}
		w := e.Wallet("alice", 0)
		e.Enable("noop", w.ID, "read:transaction")

		ix.publish(srv.URL, "noop", "1.1.0", "/noop.wasm", sum(noop), "read:transaction")
		list, _ = e.Registry.Catalog(ctx)
		if list[1].Name != "noop" || list[1].Installed != "1.0.0" || !list[1].Update {
			t.Fatalf("a newer version listed: %+v", list)
		}
		info, updated, err := e.Registry.InstallFrom(ctx, host.InstallSource{Name: "noop"})
		if err != nil || !updated || info.Version != "1.1.0" || info.State != host.Enabled || info.WalletID != w.ID ||
			strings.Join(info.Granted, " ") != "read:transaction" {
			t.Fatalf("an update asking no more: %+v %v", info, err)
		}

		ix.publish(srv.URL, "noop", "2.0.0", "/noop.wasm", sum(noop), "read:transaction", "write:transaction")
		info, _, err = e.Registry.InstallFrom(ctx, host.InstallSource{Name: "noop"})
		if err != nil || info.State != host.Installed || len(info.Granted) != 0 || !strings.Contains(info.Error, "write:transaction") {
			t.Fatalf("an update asking more: %+v %v", info, err)
		}
		e.Enable("noop", w.ID, "read:transaction", "write:transaction")

		if _, _, err := e.Registry.InstallFrom(ctx, host.InstallSource{Name: "evil"}); faultCode(err) != "invalid_plugin" {
			t.Fatalf("a module not matching its sha256: %v", err)
		}
		if _, err := e.Registry.Get("evil"); !errors.Is(err, host.ErrNotFound) {
			t.Fatalf("the refused module was installed: %v", err)
		}
		ix.publish(srv.URL, "noop", "1.5.0", "/noop.wasm", sum(noop), "read:transaction")
		if _, _, err := e.Registry.InstallFrom(ctx, host.InstallSource{Name: "noop"}); faultCode(err) != "plugin_not_newer" {
			t.Fatalf("an older version: %v", err)
		}
		if _, _, err := e.Registry.InstallFrom(ctx, host.InstallSource{Name: "nosuch"}); faultCode(err) != "plugin_not_in_catalog" {
			t.Fatalf("a name the catalog lacks: %v", err)
		}
		p, _ := e.Registry.Get("noop")
		if p.Info().Version != "2.0.0" || p.State() != host.Enabled {
			t.Fatalf("after the refusals: %+v", p.Info())
		}
		restarted := plugintest.New(t, storetest.Replica(t, db), plugintest.Options{NoRun: true})
		if err := restarted.Registry.Load(ctx); err != nil {
			t.Fatal(err)
		}
		if p, err := restarted.Registry.Get("noop"); err != nil || p.Info().Version != "2.0.0" || p.State() != host.Enabled {
			t.Fatalf("the update as stored: %v", err)
		}
	})
}
