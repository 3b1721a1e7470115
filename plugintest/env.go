package plugintest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// Env is a host over a real ledger.
type Env struct {
	T        testing.TB
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
}

// CPUShare and CPUBurst are the runtime's defaults times raceScale: the
// share and burst of each plugin in tests, unless an Options says.
const (
	CPUShare = wasm.DefaultCPUShare * raceScale
	CPUBurst = wasm.DefaultCPUBurst * raceScale
)

// New builds an Env on db; everything stops when the test ends.
func New(t testing.TB, db *store.DB, o Options) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	node, err := embedded.New(ctx, db, "regtest")
	if err != nil {
		t.Fatal(err)
	}
	bus := event.NewBus()
	led := ledger.New(db, node, bus, ledger.Config{}, nil)
	ch, err := node.SubscribeInvoices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	box, err := outbox.New(ctx, db, outbox.Config{Wake: bus})
	if err != nil {
		t.Fatal(err)
	}
	wallets := wallet.NewService(db)
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: o.AllowPrivate, Timeout: 5 * time.Second})
	api := host.NewAPI(host.APIDeps{DB: db, Ledger: led, Wallets: wallets, Outbound: out, LNURL: lnurl.NewClient(out, node, o.AllowPrivate)})
	if o.CPUShare == 0 {
		o.CPUShare = CPUShare
	}
	if o.CPUBurst == 0 {
		o.CPUBurst = CPUBurst
	}
	rt, err := wasm.New(wasm.Options{CacheDir: CompileCacheDir(), Calls: api, PoolSize: o.PoolSize, CPUShare: o.CPUShare, CPUBurst: o.CPUBurst, NormalPriority: !o.IdlePriority})
	if err != nil {
		t.Fatal(err)
	}
	reg := host.NewRegistry(host.RegistryDeps{DB: db, API: api, Loader: rt, Wallets: wallets})
	done := make(chan struct{}, 3)
	go func() { led.Consume(ctx, ch); done <- struct{}{} }()
	go func() { box.Run(ctx); done <- struct{}{} }() //nolint:errcheck // ends with ctx
	running := 2
	if !o.NoRun {
		running++
		go func() { reg.Run(ctx, box); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range running {
			<-done
		}
		reg.Close(context.Background())
		rt.Close(context.Background())
	})
	return &Env{T: t, DB: db, Node: node, Bus: bus, Outbox: box, Ledger: led, Wallets: wallets, API: api, Registry: reg, Runtime: rt}
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
