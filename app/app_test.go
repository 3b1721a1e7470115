package app_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/contract"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/onchain"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// New wires the built-ins listed, and them alone, on each database: each
// is registered with the host, the node is the one node.backend names,
// and Start and Close run and stop the background work (twice: a
// restart over the same database).
func TestNewWiresTheListedBuiltins(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		list := append([]app.Builtin{app.EmbeddedNode(), builtins.LND()}, app.Features(webhooks.Descriptor(nil), lnurl.Descriptor(),
			nostr.Descriptor(nil), onchain.Descriptor(nil))...)
		for range 2 {
			a, err := app.New(ctx, config.Default(), db, app.Options{Builtins: list, NoWasm: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Start(ctx); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range a.Registry.List() {
				names = append(names, p.Name)
			}
			slices.Sort(names)
			if want := []string{"lnurl", "node-embedded", "nostr", "onchain", "webhooks"}; !slices.Equal(names, want) {
				t.Errorf("registered %v, want %v", names, want)
			}
			if a.Runtime != nil || a.Outbox == nil || a.Hub == nil || a.Node == nil {
				t.Errorf("app %+v", a)
			}
			want := map[string]string{contract.LightningAddress: "lnurl", contract.NostrNames: "lnurl", contract.Zaps: "nostr",
				contract.NostrSigner: "nostr"}
			if got := a.Registry.Provided(); !maps.Equal(got, want) {
				t.Errorf("the built-ins provide %v, want %v", got, want)
			}
			a.Close()
			a.Close()
		}
		a, err := app.New(ctx, config.Default(), db, app.Options{Builtins: []app.Builtin{app.EmbeddedNode()}, NoWasm: true, NoOutbox: true})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if len(a.Registry.Provided()) != 0 || a.Outbox != nil || len(a.Registry.List()) != 1 {
			t.Errorf("with the embedded node alone: services %v, outbox %v, plugins %v", a.Registry.Provided(), a.Outbox, a.Registry.List())
		}
	})
}

// The built-ins meet through the registry in any order, and one listed
// without the other it would consult does without it: Nostr before
// LNURL, and Nostr alone (no names to answer, no address to zap).
func TestBuiltinsInAnyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, list := range map[string][]app.Builtin{
		"nostr before lnurl": {app.EmbeddedNode(), app.Feature(nostr.Descriptor(nil)), app.Feature(lnurl.Descriptor())},
		"nostr alone":        {app.EmbeddedNode(), app.Feature(nostr.Descriptor(nil))},
	} {
		a, err := app.New(ctx, config.Default(), storetest.SQLite(t), app.Options{Builtins: list, NoWasm: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := a.Start(ctx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		withLNURL := len(list) == 3
		got := a.Registry.Provided()
		if _, names := got[contract.NostrNames]; names != withLNURL || got[contract.Zaps] != "nostr" {
			t.Errorf("%s: services %v", name, got)
		}
		a.Close()
	}
}

// A node.backend that no listed built-in provides is refused, and so is a
// built-in's section that does not validate.
func TestNewRefusesAMissingBackend(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	cfg := config.Default()
	cfg.Node.Backend = "cln"
	if _, err := app.New(context.Background(), cfg, db, app.Options{Builtins: []app.Builtin{app.EmbeddedNode(), builtins.LND()}}); err == nil ||
		!strings.Contains(err.Error(), `node.backend "cln" is not available`) {
		t.Errorf("cln: %v", err)
	}
	list := []app.Builtin{app.EmbeddedNode(), builtins.LND(), app.Feature(onchain.Descriptor(nil))}
	if _, err := app.LoadConfig("", []string{"HEARTH_NODE_BACKEND=lnd"}, list); err == nil || !strings.Contains(err.Error(), "node.lnd.tls_cert") {
		t.Errorf("lnd without its section: %v", err)
	}
	if _, err := app.LoadConfig("", []string{"HEARTH_ONCHAIN_TARGET_CONF=0"}, list); err == nil || !strings.Contains(err.Error(), "onchain.target_conf") {
		t.Errorf("a bad onchain section: %v", err)
	}
	if _, err := app.LoadConfig("", []string{"HEARTH_ONCHAIN_TARGET_CONF=0"}, list[:2]); err != nil {
		t.Errorf("the onchain section of a list without it: %v", err)
	}
}

// metrics.off counts nothing (App.Metrics nil); by default the metrics
// are counted without their listener.
func TestMetricsOffCountsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, off := range []bool{false, true} {
		cfg := config.Default()
		cfg.Metrics.Off = off
		a, err := app.New(ctx, cfg, storetest.SQLite(t), app.Options{Builtins: []app.Builtin{app.EmbeddedNode()}, NoWasm: true, NoOutbox: true})
		if err != nil {
			t.Fatalf("off %v: %v", off, err)
		}
		if (a.Metrics == nil) != off {
			t.Errorf("metrics.off %v: App.Metrics %v", off, a.Metrics)
		}
		a.Close()
	}
}
