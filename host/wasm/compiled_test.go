package wasm_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestLoadKeepsTheCompiledModule: a plugin disabled and enabled again, or
// failed and re-enabled, is not decoded and compiled again, nor its code
// read; its removal releases it.
func TestLoadKeepsTheCompiledModule(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	e.Install(plugin(t, "hostile"), hostileManifest("hostile"))
	ctx := context.Background()
	if _, err := e.Registry.Configure(ctx, "hostile", []byte(`{"mode":"none"}`)); err != nil {
		t.Fatal(err)
	}
	e.Enable("hostile", "")
	p, _ := e.Registry.Get("hostile")
	if !wasm.Kept(e.Runtime, p) {
		t.Fatal("the runtime keeps nothing of an enabled plugin")
	}
	read := 0
	code := func(context.Context) ([]byte, error) { read++; return nil, errors.New("no code") }
	run, err := e.Runtime.Load(ctx, p, code)
	if err != nil {
		t.Fatalf("a second Load: %v", err)
	}
	defer run.Close(ctx)
	if read != 0 {
		t.Fatalf("a second Load read the code %d times", read)
	}
	if _, err := run.HTTP(ctx, []byte(`{"method":"GET","path":"/config"}`)); err != nil {
		t.Fatalf("the second runner: %v", err)
	}
	if _, err := e.Registry.Disable(ctx, "hostile"); err != nil {
		t.Fatal(err)
	}
	e.Enable("hostile", "")
	if _, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/config"}); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
	if err := e.Registry.Remove(ctx, "hostile"); err != nil {
		t.Fatal(err)
	}
	if wasm.Kept(e.Runtime, p) {
		t.Fatal("the runtime still keeps a removed plugin")
	}
	if _, err := e.Runtime.Load(ctx, p, code); err == nil || read != 1 {
		t.Fatalf("Load after the removal: %v, code read %d times", err, read)
	}
}

// TestDisableStopsABusyCall: disabling a plugin stops a call in progress
// at once, not at its deadline.
func TestDisableStopsABusyCall(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), unshared)
	e.Install(plugin(t, "hostile"), hostileManifestWith("hostile", 5000))
	e.Enable("hostile", "")
	ctx := context.Background()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/loop"})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if _, err := e.Registry.Disable(ctx, "hostile"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, host.ErrUnavailable) {
			t.Fatalf("the stopped call: %v, want unavailable", err)
		}
		t.Logf("stopped after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(2 * time.Second):
		t.Fatal("the busy call still runs 2 s after Disable")
	}
}

// TestSDKImportsEveryHostFunction: a plugin built with the SDK imports
// from hearth_v2 exactly the host functions the host defines for it (and
// take): a function the host adds reaches plugin authors through the SDK
// and its test double (sdk.HostFunctions, sdktest), or this fails.
func TestSDKImportsEveryHostFunction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	mod, err := r.CompileModule(ctx, plugin(t, "noop"))
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, f := range mod.ImportedFunctions() {
		if m, name, ok := f.Import(); ok && m == host.ABIVersion {
			imported = append(imported, name)
		}
	}
	want := append(host.OpsOf(host.ABIVersion), "take")
	slices.Sort(imported)
	slices.Sort(want)
	if !slices.Equal(imported, want) {
		t.Fatalf("the SDK imports %v\nthe host defines %v", imported, want)
	}
}
