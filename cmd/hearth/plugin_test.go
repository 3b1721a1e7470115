package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/config"
)

func TestPluginCommandCallsTheAdminAPI(t *testing.T) {
	t.Parallel()
	type call struct {
		method, path, auth string
		body               map[string]any
	}
	calls := make(chan call, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		calls <- call{r.Method, r.URL.Path, r.Header.Get("Authorization") + r.Header.Get("Api-Key"), body}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	module := []byte("\x00asm\x01\x00\x00\x00")
	os.WriteFile(filepath.Join(dir, "p.wasm"), module, 0o600)
	os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{"name":"p"}`), 0o600)
	sum := sha256.Sum256(module)
	cfg := config.Default()
	env := []string{"HEARTH_TOKEN=tok"}
	ctx := context.Background()
	var out bytes.Buffer
	for _, tc := range []struct {
		args         []string
		method, path string
		check        func(map[string]any) bool
	}{
		{[]string{"--url", srv.URL, "list", "--json"}, "GET", "/v1/plugins", nil},
		{[]string{"--url", srv.URL, "install", filepath.Join(dir, "p.wasm"), filepath.Join(dir, "p.json")}, "POST", "/v1/plugins",
			func(b map[string]any) bool {
				return b["sha256"] == hex.EncodeToString(sum[:]) && b["wasm"] == "AGFzbQEAAAA="
			}},
		{[]string{"--url", srv.URL, "enable", "p", "--scopes", "read:wallet, write:transaction", "--wallet", "w1"}, "POST", "/v1/plugins/p/enable",
			func(b map[string]any) bool { return len(b["scopes"].([]any)) == 2 && b["wallet_id"] == "w1" }},
		{[]string{"--url", srv.URL, "config", "p", `{"url":"x"}`}, "PUT", "/v1/plugins/p/config",
			func(b map[string]any) bool { return b["url"] == "x" }},
		{[]string{"--url", srv.URL, "catalog", "--json"}, "GET", "/v1/plugins/catalog", nil},
		{[]string{"--url", srv.URL, "install", "notify"}, "POST", "/v1/plugins/install",
			func(b map[string]any) bool { return b["name"] == "notify" }},
		{[]string{"--url", srv.URL, "disable", "p"}, "POST", "/v1/plugins/p/disable", nil},
		{[]string{"--url", srv.URL, "logs", "p"}, "GET", "/v1/plugins/p/logs", nil},
		{[]string{"--url", srv.URL, "remove", "p"}, "DELETE", "/v1/plugins/p", nil},
	} {
		if err := pluginCommand(ctx, cfg, tc.args, &out, env); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		c := <-calls
		if c.method != tc.method || c.path != tc.path || c.auth != "Bearer tok" || (tc.check != nil && !tc.check(c.body)) {
			t.Errorf("%v: sent %+v", tc.args, c)
		}
	}
	if err := pluginCommand(ctx, cfg, []string{"--url", srv.URL, "install", filepath.Join(dir, "p.wasm"), filepath.Join(dir, "p.json"), "--sha256", "00"}, &out, env); err == nil ||
		!strings.Contains(err.Error(), "not 00") {
		t.Fatalf("wrong pin: %v", err)
	}
}
