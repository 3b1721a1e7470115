package wasm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestSlowPluginQueueIsBoundedAndPublishNeverBlocks floods a plugin that
// loops on every event: publishing stays immediate, the plugin's queue
// holds what it can and the rest is dropped and counted; a plugin bound to
// another wallet hears none of it.
func TestSlowPluginQueueIsBoundedAndPublishNeverBlocks(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	alice := e.Wallet("alice", 0)
	bob := e.Wallet("bob", 0)
	e.Install(plugin(t, "hostile"), hostileManifestWith("hostile", 1000))
	if _, err := e.Registry.Configure(context.Background(), "hostile", []byte(`{"mode":"loop"}`)); err != nil {
		t.Fatal(err)
	}
	e.Enable("hostile", alice.ID, "read:transaction")
	e.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	e.Enable("noop", bob.ID, "read:transaction")
	hostile, _ := e.Registry.Get("hostile")
	noop, _ := e.Registry.Get("noop")

	const n = 300
	start := time.Now()
	for i := range n {
		e.Bus.Publish(context.Background(), event.Event{Type: event.InvoiceSettled, WalletID: alice.ID,
			ID: "inv-" + string(rune('a'+i%26)), At: time.Now(), Data: map[string]int{"i": i}})
	}
	// Publish never waits for a plugin: each call of the looping plugin
	// runs until its CPU burst stops it, so a publisher that waited would
	// have seen every event delivered before it returned.
	if got := hostile.Info().Delivered; got >= n {
		t.Fatalf("all %d events were delivered before Publish returned: it waited for the plugin", got)
	}
	e.Eventually("events to be dropped", func() bool { return hostile.Info().Dropped > 0 })
	if got := noop.Info().Delivered; got != 0 {
		t.Fatalf("a plugin bound to another wallet got %d events", got)
	}
	if st := hostile.State(); st != host.Enabled && st != host.Failed {
		t.Fatalf("state %s", st)
	}
	// The drops are logged once a second at most, not once each.
	// The counter is raised before the line is logged: wait for the line.
	dropLines := func() int {
		logs, err := e.Registry.Logs("hostile", 200)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, l := range logs {
			if strings.HasPrefix(l.Msg, "event dropped") {
				lines++
			}
		}
		return lines
	}
	e.Eventually("a dropped event to be logged", func() bool { return dropLines() > 0 })
	if lines, most := dropLines(), 1+int(time.Since(start)/time.Second); lines > most {
		t.Fatalf("%d log lines for %d dropped events in %s, want 1 to %d", lines, hostile.Info().Dropped, time.Since(start), most)
	}
}
