package wasm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestReplicasFollowPluginChanges checks, on PostgreSQL, that what the
// admin does to a plugin on one replica reaches another without a
// restart: installed, enabled (and running there: it receives the other
// replica's events), disabled, removed.
func TestReplicasFollowPluginChanges(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	a := plugintest.New(t, db, plugintest.Options{})
	b := plugintest.New(t, storetest.Replica(t, db), plugintest.Options{})
	ctx := context.Background()
	for _, e := range []*plugintest.Env{a, b} {
		if err := e.Registry.Load(ctx); err != nil {
			t.Fatal(err)
		}
	}
	state := func(e *plugintest.Env) host.State {
		p, err := e.Registry.Get("noop")
		if errors.Is(err, host.ErrNotFound) {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return p.State()
	}

	a.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	b.Eventually("the install to reach the replica", func() bool { return state(b) == host.Installed })

	w := a.Wallet("alice", 0)
	a.Enable("noop", w.ID, "read:transaction")
	b.Eventually("the enable to reach the replica", func() bool { return state(b) == host.Enabled })
	p, err := b.Registry.Get("noop")
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Grant(); g.WalletID != w.ID || !g.Scopes.Has(auth.ReadTransaction) {
		t.Fatalf("grant on the replica = %+v", g)
	}
	b.Wallet("alice", 1000) // an invoice settled on the replica
	// One replica at a time delivers (host.Registry.Run): either.
	pa, err := a.Registry.Get("noop")
	if err != nil {
		t.Fatal(err)
	}
	b.Eventually("one replica's plugin to receive the event", func() bool { return p.Info().Delivered+pa.Info().Delivered == 1 })

	if _, err := a.Registry.Disable(ctx, "noop"); err != nil {
		t.Fatal(err)
	}
	b.Eventually("the disable to reach the replica", func() bool { return state(b) == host.Disabled })
	if err := a.Registry.Remove(ctx, "noop"); err != nil {
		t.Fatal(err)
	}
	b.Eventually("the removal to reach the replica", func() bool { return state(b) == "" })
}

// TestLoadStartsEnabledPlugins checks start-up: a registry loading a
// database where a plugin is enabled starts it, with its stored grant,
// and it receives events; a disabled one is loaded but not started.
func TestLoadStartsEnabledPlugins(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	before := plugintest.New(t, db, plugintest.Options{})
	w := before.Wallet("alice", 0)
	before.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	before.Enable("noop", w.ID, "read:transaction")
	before.Install(plugin(t, "noop"), manifest("idle", []string{"read:transaction"}, event.InvoiceSettled))

	after := plugintest.New(t, db, plugintest.Options{})
	if err := after.Registry.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	idle, err := after.Registry.Get("idle")
	if err != nil || idle.State() != host.Installed {
		t.Fatalf("idle plugin after Load: %v, %v", idle, err)
	}
	p, err := after.Registry.Get("noop")
	if err != nil {
		t.Fatal(err)
	}
	if p.State() != host.Enabled || p.Grant().WalletID != w.ID {
		t.Fatalf("after Load: state %s, grant %+v", p.State(), p.Grant())
	}
	after.Wallet("alice", 1000)
	after.Eventually("the loaded plugin to receive its event", func() bool { return p.Info().Delivered == 1 })
}

// TestSyncTakesNewCode: a plugin removed and installed again with other
// code under the same name, between two syncs of a replica, runs the new
// code there, not the compiled module the replica kept of the old one.
func TestSyncTakesNewCode(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t) // no NOTIFY: the replica syncs when told
	a := plugintest.New(t, db, plugintest.Options{NoRun: true})
	b := plugintest.New(t, db, plugintest.Options{NoRun: true})
	ctx := context.Background()
	a.Install(plugin(t, "noop"), manifest("swap", nil))
	a.Enable("swap", "")
	if err := b.Registry.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	old, err := b.Registry.Get("swap")
	if err != nil || old.State() != host.Enabled {
		t.Fatalf("after the first sync: %v", err)
	}
	if err := a.Registry.Remove(ctx, "swap"); err != nil {
		t.Fatal(err)
	}
	info := a.Install(plugin(t, "hostile"), hostileManifest("swap"))
	a.Enable("swap", "")
	if err := b.Registry.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := b.Registry.Get("swap")
	if err != nil || p.State() != host.Enabled || p.SHA256 != info.SHA256 {
		t.Fatalf("after the second sync: %v, sha256 %s, want %s", err, p.SHA256, info.SHA256)
	}
	resp, err := b.Registry.Serve(ctx, "swap", host.PluginRequest{Method: "GET", Path: "/config"})
	if err != nil || resp.Status != 200 {
		t.Fatalf("the new code on the replica: %v %+v", err, resp)
	}
}
