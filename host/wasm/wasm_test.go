package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

func plugin(t testing.TB, name string) []byte {
	return plugintest.Build(t, filepath.Join("..", "testdata", "plugins", name))
}

func manifest(name string, scopes []string, events ...string) []byte {
	m := map[string]any{"name": name, "version": "1.0.0", "abi": "hearth_v1", "scopes": scopes, "events": events}
	b, _ := json.Marshal(m)
	return b
}

func TestNoopPluginReceivesEvents(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	w := e.Wallet("alice", 0)
	e.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	e.Enable("noop", w.ID, "read:transaction")
	e.Wallet("alice", 1000) // settles an invoice into alice's wallet
	p, err := e.Registry.Get("noop")
	if err != nil {
		t.Fatal(err)
	}
	e.Eventually("the event to be delivered", func() bool { return p.Info().Delivered == 1 })
	if st := p.State(); st != host.Enabled {
		t.Fatalf("state %s", st)
	}
}

func TestInstallRefusesBadModules(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	good := plugin(t, "noop")
	for name, tc := range map[string]struct {
		wasm []byte
		pin  string
	}{
		"wrong pin": {good, "00"},
		"not wasm":  {[]byte("hello"), ""},
		"no sdk":    {[]byte("\x00asm\x01\x00\x00\x00"), ""},
	} {
		pin := tc.pin
		if pin == "" {
			pin = sum(tc.wasm)
		}
		if _, err := e.Registry.Install(context.Background(), manifest("bad", nil), tc.wasm, pin); err == nil {
			t.Errorf("%s: installed", name)
		}
	}
}

func sum(b []byte) string {
	return fmt.Sprintf("%x", sha256Sum(b))
}

// A plugin of the first ABI, hearth_v1 (written without the SDK, which
// now speaks hearth_v2), installs and runs as before: its host calls
// reach hearth_v1's functions and act on its bound wallet, and it is
// never told the caller of its route, even with caller:act granted.
func TestFirstABIStillLoads(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	alice := e.Wallet("alice", 0)
	m, _ := json.Marshal(map[string]any{"name": "old", "version": "1.0.0", "abi": host.ABIv1,
		"scopes": []string{"read:wallet", host.CallerAct}, "routes": []map[string]any{{"method": "GET", "path": "/w", "scope": "read:wallet"}}})
	e.Install(plugin(t, "abiv1"), m)
	e.Enable("old", alice.ID, "read:wallet", host.CallerAct)
	r := e.RequestAs("old", "bob", []string{"read:wallet"}, "GET", "/w", nil)
	var got struct{ Request, Wallet string }
	if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != 200 {
		t.Fatalf("answer %d %s (%v)", r.Status, r.Body, err)
	}
	if strings.Contains(got.Request, "caller") || strings.Contains(got.Request, "bob") {
		t.Fatalf("a hearth_v1 plugin was told the caller: %s", got.Request)
	}
	if !strings.Contains(got.Wallet, alice.ID) {
		t.Fatalf("its wallet call answered %s, want its bound wallet %s", got.Wallet, alice.ID)
	}
}
