package wasm_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestGuestCallsRunAtTheLowestPriority reads the nice value of the thread
// that runs each host call the guest makes on every path into a guest: an
// event delivered by the plugin's worker, an HTTP route, and an export
// called directly. ping and config run on the guest's own thread, at the
// lowest priority; the calls that take shared locks (kv_set) run on an
// ordinary thread.
func TestGuestCallsRunAtTheLowestPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread priorities are set on Linux only")
	}
	t.Parallel()
	ordinary, err := wasm.ThreadNice()
	if err != nil {
		t.Fatal(err)
	}
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{IdlePriority: true})
	var mu sync.Mutex
	nice := map[string][]int{}
	wasm.WatchHostCalls(e.Runtime, func(name string) {
		n, err := wasm.ThreadNice()
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		nice[name] = append(nice[name], n)
		mu.Unlock()
	})
	alice := e.Wallet("alice", 0)
	// The hostile plugin in mode "none" reads its config on every event.
	e.Install(plugin(t, "hostile"), hostileManifestWith("hostile", 2000))
	ctx := context.Background()
	if _, err := e.Registry.Configure(ctx, "hostile", []byte(`{"mode":"none"}`)); err != nil {
		t.Fatal(err)
	}
	e.Enable("hostile", alice.ID, "read:transaction")
	e.Install(plugin(t, "noop"), manifest("noop", nil))
	e.Enable("noop", "")
	hostile, _ := e.Registry.Get("hostile")
	noop, _ := e.Registry.Get("noop")

	e.Wallet("alice", 1000) // an invoice.settled event for alice
	e.Eventually("the event to be delivered", func() bool { return hostile.Info().Delivered == 1 })
	for _, path := range []string{"/config", "/escalate"} {
		if _, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: path}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wasm.CallExport(ctx, wasm.Runner(noop), "bench_ping", 1); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(nice["config"]); n != 2 {
		t.Errorf("%d config calls seen (the event's and the route's), want 2: %v", n, nice)
	}
	for name, want := range map[string]int{"config": wasm.LowestNice, "ping": wasm.LowestNice, "kv_set": ordinary} {
		if len(nice[name]) == 0 {
			t.Errorf("no %s host call seen: %v", name, nice)
		}
		for _, n := range nice[name] {
			if n != want {
				t.Errorf("%s ran at nice %d, want %d", name, n, want)
			}
		}
	}
}
