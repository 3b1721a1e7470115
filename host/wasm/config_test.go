package wasm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// secretsManifest is the hostile plugin (its /config answers the config it
// reads through the host) with a schema of secrets and optional keys.
func secretsManifest(name string) []byte {
	var m map[string]any
	json.Unmarshal(hostileManifest(name), &m) //nolint:errcheck // our own JSON
	m["config"] = map[string]any{
		"mode":  map[string]any{"type": "string"},
		"note":  map[string]any{"type": "string"},
		"tries": map[string]any{"type": "integer", "default": 3},
		"key":   map[string]any{"type": "string", "secret": true, "required": true},
		"token": map[string]any{"type": "string", "secret": true},
	}
	b, _ := json.Marshal(m)
	return b
}

// pluginConfig is the config plugin name reads through the host.
func pluginConfig(t *testing.T, e *plugintest.Env, name string) map[string]any {
	t.Helper()
	resp := e.Get(name, "/config")
	var cfg map[string]any
	if err := json.Unmarshal(resp.Body, &cfg); resp.Status != 200 || err != nil {
		t.Fatalf("the plugin's config: %d %s %v", resp.Status, resp.Body, err)
	}
	return cfg
}

func sameConfig(got map[string]any, want string) bool {
	var w map[string]any
	json.Unmarshal([]byte(want), &w) //nolint:errcheck // our own JSON
	g, _ := json.Marshal(got)
	b, _ := json.Marshal(w)
	return string(g) == string(b)
}

// TestConfigKeepsSecrets: on both databases, a config update that leaves a
// secret out keeps its value (the plugin still reads it) while the API
// shows it masked; the mask sent back is refused; a new value replaces
// it; null unsets an optional secret and "" or null an optional string;
// a required key cannot be unset.
func TestConfigKeepsSecrets(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, unshared, func(t *testing.T, e *plugintest.Env) {
		ctx := context.Background()
		e.Install(plugin(t, "hostile"), secretsManifest("vault"))
		e.Configure("vault", `{"mode":"none","note":"hi","key":"k1","token":"t1"}`)
		e.Enable("vault", "")
		step := func(what, update, want string) {
			t.Helper()
			info := e.Configure("vault", update)
			if got := pluginConfig(t, e, "vault"); !sameConfig(got, want) {
				t.Fatalf("%s: the plugin reads %v, want %s", what, got, want)
			}
			var shown map[string]any
			if err := json.Unmarshal(info.Config, &shown); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"key", "token"} {
				if v, ok := shown[k]; ok && v != host.ConfigMask {
					t.Fatalf("%s: the API shows %s as %v", what, k, v)
				}
			}
		}
		step("secrets left out", `{"mode":"none","note":"hello"}`,
			`{"mode":"none","note":"hello","tries":3,"key":"k1","token":"t1"}`)
		for _, bad := range []string{`{"key":"********"}`, `{"token":"********"}`, `{"key":null}`, `{"key":""}`, `{"note":5}`} {
			_, err := e.Registry.Configure(ctx, "vault", []byte(bad))
			if !errors.Is(err, host.ErrInvalid) {
				t.Fatalf("%s: %v, want refused", bad, err)
			}
		}
		step("refusals changed nothing", `{"mode":"none","note":"hello"}`,
			`{"mode":"none","note":"hello","tries":3,"key":"k1","token":"t1"}`)
		step("a new secret, the note emptied", `{"mode":"none","note":"","key":"k2","tries":4}`,
			`{"mode":"none","tries":4,"key":"k2","token":"t1"}`)
		step("the optional secret cleared, the note null", `{"token":null,"note":null,"tries":null}`,
			`{"tries":3,"key":"k2"}`)
		step("nothing sent", `{}`, `{"tries":3,"key":"k2"}`)
	})
}

// TestConfigSecretsAcrossReplicas: one replica sets a secret while another
// keeps changing other keys (leaving the secret out): the last secret set
// is the one stored, never an older one read before it was written.
func TestConfigSecretsAcrossReplicas(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a := plugintest.New(t, db, unshared)
		a.Install(plugin(t, "hostile"), secretsManifest("vault"))
		a.Configure("vault", `{"key":"k0"}`)
		b := plugintest.New(t, storetest.Replica(t, db), unshared)
		if err := b.Registry.Load(ctx); err != nil {
			t.Fatal(err)
		}
		const n = 30
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range n {
				_, err := a.Registry.Configure(ctx, "vault", fmt.Appendf(nil, `{"key":"k%d"}`, i+1))
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			for i := range n {
				_, err := b.Registry.Configure(ctx, "vault", fmt.Appendf(nil, `{"note":"n%d"}`, i))
				errs <- err
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Registry.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		a.Enable("vault", "")
		got := pluginConfig(t, a, "vault")
		if got["key"] != fmt.Sprintf("k%d", n) {
			t.Fatalf("the plugin reads key %v, want k%d (the last set)", got["key"], n)
		}
	})
}
