package plugintest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// Env is a host over a real ledger.
type Env struct {
	T testing.TB
	// App is the application the Env's parts are of.
	App      *app.App
	DB       *store.DB
	Node     *embedded.Node
	Bus      *event.Bus
	Outbox   *outbox.Outbox
	Ledger   *ledger.Service
	Wallets  *wallet.Service
	API      *host.API
	Registry *host.Registry
	Runtime  *wasm.Runtime
}

// Options adjust an Env.
type Options struct {
	// AllowPrivate lets outbound HTTP reach loopback (httptest servers).
	AllowPrivate bool
	// NoRun leaves event delivery off (benchmarks drive it by hand).
	NoRun bool
	// KVKeys is the most keys each plugin keeps (plugins.kv_keys); 0 for
	// the server's default.
	KVKeys int
	// SendRetry, when set, is the durable sender's first retry (doubled
	// up to 5 times it after each failure), and its poll at most a second:
	// tests see retries without waiting the server's 5 s.
	SendRetry time.Duration
	// OutboxReadEvery, when set, is the outbox's shortest time between two
	// reads of a consumer that waited for the head (outbox.Config.ReadEvery).
	OutboxReadEvery time.Duration
	// PoolSize of each plugin; default the runtime's.
	PoolSize int
	// CPUShare and CPUBurst of each plugin; default the package's
	// CPUShare and CPUBurst.
	CPUShare float64
	CPUBurst time.Duration
	// IdlePriority runs plugin code on threads of the lowest priority, as
	// a server does. By default tests run it at normal priority: on a
	// machine that other processes keep busy, threads of the lowest
	// priority get no CPU, and plugin starts and events would wait for
	// minutes. The tests of the priority itself, and the p99 benchmark
	// beside hostile plugins, set it.
	IdlePriority bool
	// Rates, when set, runs Hearth's rates plugin with these prices by
	// hand and no source (its rates.fixed, e.g. "USD:95000,EUR:88000"):
	// the plugin under test reads them (rates:read, sdk.Rate) and asks for
	// invoices in those currencies.
	Rates string
	// Node, when set, is the node the ledger uses, made from the Env's
	// embedded node (a test's double that pays outside the instance, or
	// leaves a payment in flight); Env.Node stays the embedded one.
	Node func(inner *embedded.Node) ledger.Node
}

// CPUShare and CPUBurst are the runtime's defaults times raceScale: the
// share and burst of each plugin in tests, unless an Options says.
const (
	CPUShare = wasm.DefaultCPUShare * raceScale
	CPUBurst = wasm.DefaultCPUBurst * raceScale
)

// New builds an Env on db as `hearth serve` builds its application
// (app.New: the embedded node, no built-in plugin) and runs what a
// plugin's tests need of it; everything stops when the test ends.
func New(t testing.TB, db *store.DB, o Options) *Env {
	t.Helper()
	ctx := context.Background()
	cfg := config.Default()
	cfg.Plugins.AllowPrivateHosts = o.AllowPrivate
	if o.KVKeys > 0 {
		cfg.Plugins.KVKeys = o.KVKeys
	}
	if o.CPUShare == 0 {
		o.CPUShare = CPUShare
	}
	if o.CPUBurst == 0 {
		o.CPUBurst = CPUBurst
	}
	var node ledger.Node
	var inner *embedded.Node
	if o.Node != nil {
		var err error
		if inner, err = embedded.New(ctx, db, cfg.Node.Network); err != nil {
			t.Fatal(err)
		}
		node = o.Node(inner)
	}
	a, err := app.New(ctx, cfg, db, app.Options{
		Node:            node,
		Builtins:        []app.Builtin{app.EmbeddedNode()},
		OutboundTimeout: 5 * time.Second,
		OutboxReadEvery: o.OutboxReadEvery,
		Sender:          senderConfig(o.SendRetry),
		Wasm: func(w *wasm.Options) {
			w.CacheDir, w.PoolSize, w.CPUShare, w.CPUBurst, w.NormalPriority = CompileCacheDir(), o.PoolSize, o.CPUShare, o.CPUBurst, !o.IdlePriority
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The ln_address call resolves Lightning Addresses as the server's
	// Lightning Address plugin would, through its LNURL-pay client (the
	// harness runs no built-in besides the node and this one).
	if err := provideAddresses(ctx, a, o.AllowPrivate); err != nil {
		t.Fatal(err)
	}
	if o.Rates != "" {
		if err := fixRates(ctx, a, o.Rates); err != nil {
			t.Fatal(err)
		}
	}
	// The parts of Start a plugin's tests need, and no more: the ledger
	// takes the embedded node's settlements, the outbox runs, and (unless
	// NoRun) the events reach the plugins. The installed plugins load when
	// a test calls Registry.Load, as a restarted server would.
	run, cancel := context.WithCancel(ctx)
	ch, err := a.Node.SubscribeInvoices(run)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { a.Ledger.Consume(run, ch) })
	wg.Go(func() { a.Outbox.Run(run) }) //nolint:errcheck // ends with run
	wg.Go(func() { a.Hub.Run(run) })    // the API's event streams
	if !o.NoRun {
		wg.Go(func() { a.Registry.Run(run, a.Outbox) })
		wg.Go(func() { a.HostAPI.Sender().Run(run, a.Outbox) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		a.Close()
	})
	if inner == nil {
		inner = a.Node.(*embedded.Node)
	}
	return &Env{T: t, App: a, DB: db, Node: inner, Bus: a.Bus, Outbox: a.Outbox, Ledger: a.Ledger, Wallets: a.Wallets,
		API: a.HostAPI, Registry: a.Registry, Runtime: a.Runtime}
}

// Admin is the admin principal, with every scope: the one who enables
// plugins in tests.
var Admin = &auth.Principal{UserID: auth.AdminUserID, Scopes: auth.AllScopes, Admin: true, Method: auth.MethodJWT}

// Install installs wasm with manifest, pinned by its real sha256.
func (e *Env) Install(wasmBytes, manifest []byte) *host.Info {
	e.T.Helper()
	sum := sha256.Sum256(wasmBytes)
	info, err := e.Registry.Install(context.Background(), manifest, wasmBytes, hex.EncodeToString(sum[:]))
	if err != nil {
		e.T.Fatalf("installing plugin: %v", err)
	}
	return info
}

// Enable enables plugin name with scopes, bound to walletID.
func (e *Env) Enable(name, walletID string, scopes ...string) *host.Info {
	e.T.Helper()
	info, err := e.Registry.Enable(context.Background(), Admin, name, scopes, walletID)
	if err != nil {
		e.T.Fatalf("enabling plugin %s: %v", name, err)
	}
	return info
}

// Wallet creates a wallet for userID funded with msat (0 for none), paid
// in by the embedded node as an outside payer.
func (e *Env) Wallet(userID string, msat int64) *wallet.Wallet {
	e.T.Helper()
	ctx := context.Background()
	w, err := e.Wallets.Ensure(ctx, userID)
	if err != nil {
		e.T.Fatal(err)
	}
	if msat > 0 {
		inv, err := e.Ledger.CreateInvoice(ctx, w.ID, ledger.NewInvoice{AmountMsat: msat})
		if err != nil {
			e.T.Fatal(err)
		}
		if err := e.Node.PayAsOutsider(ctx, inv.Bolt11); err != nil {
			e.T.Fatal(err)
		}
	}
	return w
}

// Balance returns a wallet's balance.
func (e *Env) Balance(walletID string) wallet.Balance {
	e.T.Helper()
	w, err := e.Wallets.Get(context.Background(), walletID)
	if err != nil {
		e.T.Fatal(err)
	}
	return w.Balance
}

// Eventually waits, up to 20 s, for cond to hold, checking it as often as
// it can without sleeping on a fixed interval longer than a millisecond.
func (e *Env) Eventually(what string, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			e.T.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// senderConfig is the durable sender's configuration for a first retry
// of retry; zero for the server's.
func senderConfig(retry time.Duration) host.SenderConfig {
	if retry <= 0 {
		return host.SenderConfig{}
	}
	return host.SenderConfig{FirstRetry: retry, MaxBackoff: 5 * retry, Poll: min(retry, time.Second)}
}

// DueNow makes timer name of plugin due now: its worker fires it within
// seconds (it reads its timers' due times every 5 s), as it would at its
// time. The timer must have started (its plugin enabled a moment).
func (e *Env) DueNow(plugin, name string) {
	e.T.Helper()
	ctx := context.Background()
	e.Eventually("timer "+name+" of "+plugin+" to start", func() bool {
		n, err := e.DB.R.NewSelect().Table("plugin_timers").Where("plugin = ?", plugin).Where("name = ?", name).Count(ctx)
		return err == nil && n == 1
	})
	_, err := e.DB.W.NewUpdate().Table("plugin_timers").Set("due_ms = ?", time.Now().UnixMilli()).
		Where("plugin = ?", plugin).Where("name = ?", name).Exec(ctx)
	if err != nil {
		e.T.Fatalf("making timer %s of %s due: %v", name, plugin, err)
	}
}
