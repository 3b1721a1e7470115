package wasm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
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
