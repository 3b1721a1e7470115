package wasm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugintest"
)

// hostileManifest declares the hostile plugin with a short deadline, so
// that the loop tests are quick.
func hostileManifest(name string, scopes ...string) []byte {
	m := map[string]any{
		"name": name, "version": "1.0.0", "abi": "hearth_v1", "scopes": scopes,
		"events": []string{event.InvoiceSettled, event.PaymentSettled},
		"routes": []map[string]any{{"method": "GET", "path": "/*", "public": true}},
		"config": map[string]any{"mode": map[string]any{"type": "string"}},
		"limits": map[string]any{"timeout_ms": 300, "memory_mib": 32},
	}
	b, _ := json.Marshal(m)
	return b
}

// unshared leaves a plugin's CPU share out of the way: every call may use
// its whole deadline.
var unshared = plugintest.Options{NoRun: true, CPUShare: 1, CPUBurst: time.Hour}

func TestHostilePluginsAreStoppedAndMarkedFailed(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"loop", "bomb", "panic"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := plugintest.New(t, storetest.SQLite(t), unshared)
			e.Install(plugin(t, "hostile"), hostileManifest("hostile"))
			ctx := context.Background()
			if _, err := e.Registry.Configure(ctx, "hostile", []byte(`{"mode":"`+mode+`"}`)); err != nil {
				t.Fatal(err)
			}
			e.Enable("hostile", "")
			p, _ := e.Registry.Get("hostile")
			for i := range host.MaxFaults {
				start := time.Now()
				_, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/" + mode})
				if !host.IsFault(err) {
					t.Fatalf("call %d: err %v, want a fault", i, err)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Fatalf("call %d took %s", i, d)
				}
				t.Logf("%s: %v", mode, err)
			}
			if st := p.State(); st != host.Failed {
				t.Fatalf("state %s after %d faults, want failed", st, host.MaxFaults)
			}
			if _, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/escalate"}); err == nil {
				t.Fatal("a failed plugin still serves")
			}
			// The admin re-enables it; it serves again (until it misbehaves).
			if _, err := e.Registry.Configure(ctx, "hostile", []byte(`{"mode":"none"}`)); err != nil {
				t.Fatal(err)
			}
			e.Enable("hostile", "")
			if _, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/escalate"}); err != nil {
				t.Fatalf("re-enabled plugin: %v", err)
			}
		})
	}
}

func TestHostileEventsNeverDelayPaymentsOrOtherPlugins(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	alice := e.Wallet("alice", 0)
	bob := e.Wallet("bob", 0)
	e.Install(plugin(t, "hostile"), hostileManifest("hostile", "read:transaction"))
	if _, err := e.Registry.Configure(context.Background(), "hostile", []byte(`{"mode":"loop"}`)); err != nil {
		t.Fatal(err)
	}
	e.Enable("hostile", alice.ID, "read:transaction")
	e.Install(plugin(t, "noop"), manifest("noop", []string{"read:transaction"}, event.InvoiceSettled))
	e.Enable("noop", alice.ID, "read:transaction")
	e.Wallet("bob", 100_000)
	ctx := context.Background()
	for i := range 5 {
		inv, err := e.Ledger.CreateInvoice(ctx, alice.ID, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, _, err := e.Ledger.Pay(ctx, bob.ID, ledger.PayRequest{Input: inv.Bolt11}); err != nil {
			t.Fatalf("payment %d: %v", i, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("payment %d took %s with a looping plugin subscribed", i, d)
		}
	}
	hostile, _ := e.Registry.Get("hostile")
	noop, _ := e.Registry.Get("noop")
	e.Eventually("the hostile plugin to fail", func() bool { return hostile.State() == host.Failed })
	e.Eventually("the other plugin to get every event", func() bool { return noop.Info().Delivered == 5 })
	if b := e.Balance(alice.ID); b.AvailableMsat != 5000 {
		t.Fatalf("alice has %d msat", b.AvailableMsat)
	}
}

func TestCallsBeyondTheGrantAreRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{NoRun: true})
		alice := e.Wallet("alice", 50_000)
		bob := e.Wallet("bob", 0)
		// Declared more than granted: only read:wallet is granted.
		e.Install(plugin(t, "hostile"), hostileManifest("hostile", "read:wallet", "write:transaction", "read:transaction"))
		e.Enable("hostile", alice.ID, "read:wallet")
		ctx := context.Background()
		inv, err := e.Ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/escalate",
			Headers: map[string]string{"X-Invoice": inv.Bolt11}})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal(resp.Body, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"wallet": "ok", "create_invoice": host.ErrPermission, "pay": host.ErrPermission,
			"payments": host.ErrPermission, "http": host.ErrPermission, "kv": "ok"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %q, want %q", k, got[k], v)
			}
		}
		if b := e.Balance(alice.ID); b.AvailableMsat != 50_000 {
			t.Fatalf("alice's balance moved: %d", b.AvailableMsat)
		}
		logs, _ := e.Registry.Logs("hostile", 0)
		denied := 0
		for _, l := range logs {
			if strings.Contains(l.Msg, "permission denied") {
				denied++
			}
		}
		if denied != 4 {
			t.Fatalf("%d permission denials logged, want 4: %+v", denied, logs)
		}
		// Granting more than declared is refused.
		if _, err := e.Registry.Enable(ctx, plugintest.Admin, "hostile", []string{"write:wallet"}, alice.ID); err == nil {
			t.Fatal("granted an undeclared scope")
		}
	})
}

func TestABIGarbageIsAFault(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	e.Install(plugin(t, "garbage"), hostileManifest("garbage"))
	e.Enable("garbage", "")
	p, _ := e.Registry.Get("garbage")
	ctx := context.Background()
	payload, _ := host.EncodeEvent(event.Event{Type: event.InvoiceSettled, WalletID: "w", ID: "i", At: time.Now(), Data: 1})
	if err := e.Registry.Deliver(ctx, p, payload); !host.IsFault(err) {
		t.Fatalf("host call with a pointer outside memory: %v", err)
	}
	if _, err := e.Registry.Serve(ctx, "garbage", host.PluginRequest{Method: "GET", Path: "/"}); !host.IsFault(err) {
		t.Fatalf("answer outside memory: %v", err)
	}
	big := host.PluginRequest{Method: "GET", Path: "/", Body: make([]byte, 4096)}
	if _, err := e.Registry.Serve(ctx, "garbage", big); !host.IsFault(err) {
		t.Fatalf("alloc outside memory: %v", err)
	}
	if st := p.State(); st != host.Failed {
		t.Fatalf("state %s", st)
	}
}

func TestOutboundHTTPIsConfined(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secret"))
	}))
	defer srv.Close()
	// Private addresses refused, as in production.
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	e.Install(plugin(t, "hostile"), hostileManifest("hostile", "http:outbound:127.0.0.1", "http:outbound:localhost"))
	e.Enable("hostile", "", "http:outbound:127.0.0.1", "http:outbound:localhost")
	ctx := context.Background()
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		resp, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/fetch", Query: "url=" + u})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 502 || !strings.Contains(string(resp.Body), "private, loopback or link-local") {
			t.Fatalf("fetch %s: %d %s", u, resp.Status, resp.Body)
		}
	}
}

// hostileManifestWith is hostileManifest with another deadline.
func hostileManifestWith(name string, timeoutMS int) []byte {
	var m map[string]any
	json.Unmarshal(hostileManifest(name), &m) //nolint:errcheck // our own JSON
	m["limits"] = map[string]any{"timeout_ms": timeoutMS}
	m["scopes"] = []string{"read:transaction"}
	b, _ := json.Marshal(m)
	return b
}

// TestDeadlineCountsCPUTime: a call's deadline counts the CPU time of the
// thread running the guest, not the wall clock, so that a plugin the kernel
// keeps waiting (its threads have the lowest priority) or that waits for a
// slow host call is not failed for it. Here a route waits 900 ms for an
// outbound request under a 300 ms deadline and answers; a loop still
// faults (TestHostilePluginsAreStoppedAndMarkedFailed).
func TestDeadlineCountsCPUTime(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(900 * time.Millisecond)
		w.Write([]byte("slow but fine"))
	}))
	defer srv.Close()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true, AllowPrivate: true})
	e.Install(plugin(t, "hostile"), hostileManifest("hostile", "http:outbound:127.0.0.1"))
	e.Enable("hostile", "", "http:outbound:127.0.0.1")
	start := time.Now()
	resp, err := e.Registry.Serve(context.Background(), "hostile", host.PluginRequest{Method: "GET", Path: "/fetch", Query: "url=" + srv.URL})
	if err != nil {
		t.Fatalf("a call waiting %s on a host call under a 300 ms deadline: %v", time.Since(start), err)
	}
	if resp.Status != 200 || string(resp.Body) != "slow but fine" {
		t.Fatalf("fetch: %d %s", resp.Status, resp.Body)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("answered in %s, before the server did", d)
	}
	p, _ := e.Registry.Get("hostile")
	if st := p.State(); st != host.Enabled {
		t.Fatalf("state %s, want enabled", st)
	}
}

// TestCPUShareBoundsALoopingPlugin: a plugin that loops gets its CPU share
// and no more, however often it is called and re-enabled, though its
// deadline would let each call loop for 2 s; a call over the burst is a
// fault that says so, and one while the plugin is in debt is refused as
// busy. Not parallel: it reads the process's CPU time.
func TestCPUShareBoundsALoopingPlugin(t *testing.T) {
	const share, burst, window = 0.05, 40 * time.Millisecond, 3 * time.Second
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true, CPUShare: share, CPUBurst: burst})
	e.Install(plugin(t, "hostile"), hostileManifestWith("hostile", 2000))
	e.Enable("hostile", "")
	p, _ := e.Registry.Get("hostile")
	ctx := context.Background()
	cpu0 := processCPU(t)
	start := time.Now()
	ran := 0
	for time.Since(start) < window {
		if p.State() == host.Failed {
			e.Enable("hostile", "") // an admin who keeps re-enabling it
		}
		_, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/loop"})
		switch {
		case host.IsFault(err) && strings.Contains(err.Error(), "CPU burst"):
			ran++
		case errors.Is(err, wasm.ErrBusy):
		default:
			t.Fatalf("call %d: %v, want a fault for the CPU burst or busy", ran, err)
		}
	}
	used := processCPU(t) - cpu0
	elapsed := time.Since(start)
	// The bucket starts full, and one call may take it into debt.
	allowed := 2*burst + time.Duration(share*float64(elapsed))
	t.Logf("%d calls ran in %s; the process used %s of CPU time; the share allows %s", ran, elapsed.Round(time.Millisecond), used, allowed)
	if ran < 3 {
		t.Errorf("%d calls ran: the plugin did not get its share", ran)
	}
	// Everything else the process did (the test's calls, re-enabling)
	// takes little; without the share each call would loop for 2 s.
	if used > 2*allowed {
		t.Errorf("the process used %s of CPU time in %s, the plugin's share allows %s", used, elapsed, allowed)
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("getrusage:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLogFloodIsCapped: a plugin that logs in a loop keeps a burst of its
// lines and the host's rate; the rest are dropped and counted in its next
// line, so that neither its log nor the server's is flooded. (Its CPU
// share and deadline are out of the way: 300 host calls from Go take it
// some 25 ms, many times that under the race detector.)
func TestLogFloodIsCapped(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), unshared)
	e.Install(plugin(t, "hostile"), hostileManifestWith("hostile", 30000))
	e.Enable("hostile", "")
	ctx := context.Background()
	flood := func() {
		if _, err := e.Registry.Serve(ctx, "hostile", host.PluginRequest{Method: "GET", Path: "/logflood"}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	flood()
	time.Sleep(200 * time.Millisecond) // a few lines' worth of rate
	flood()
	most := host.LogBurst + int(host.LogRate*(time.Since(start).Seconds()+1))
	logs, err := e.Registry.Logs("hostile", 1000)
	if err != nil {
		t.Fatal(err)
	}
	kept, dropped := 0, false
	for _, l := range logs {
		if strings.HasPrefix(l.Msg, "flood ") {
			kept++
		}
		dropped = dropped || strings.Contains(l.Msg, "log lines dropped")
	}
	if kept < host.LogBurst || kept > most {
		t.Errorf("kept %d of 600 lines logged in two floods, want the burst %d and at most %d", kept, host.LogBurst, most)
	}
	if !dropped {
		t.Error("no line counts the dropped ones")
	}
}
