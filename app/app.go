package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// App is a Hearth application over one database: every part, built and
// joined, ready to Start.
type App struct {
	Config config.Config
	DB     *store.DB
	Log    *slog.Logger

	Node    ledger.Node
	Bus     *event.Bus // the ledger's commits wake the outbox through it
	Ledger  *ledger.Service
	Wallets *wallet.Service
	Keys    *auth.Keys
	Tokens  *auth.Tokens
	// Outbox and Hub (its live stream) are nil with Options.NoOutbox.
	Outbox *outbox.Outbox
	Hub    *outbox.Hub

	// Outbound is the host API's outbound HTTP client (WebAssembly
	// plugins' http call and Lightning Address lookups).
	Outbound *host.Outbound
	HostAPI  *host.API
	Runtime  *wasm.Runtime // nil with Options.NoWasm
	Registry *host.Registry
	// Metrics is the registry the parts count into; nil only with
	// Options.NoMetrics (metrics.go).
	Metrics *metrics.Metrics

	opts    Options
	cancel  context.CancelFunc
	running []task
	closed  bool
}

// Options say how to build an App beyond its configuration.
type Options struct {
	// Builtins are the built-in plugins, in the order they are wired
	// (cmd/hearth's list; tests list those they need). The node backend
	// named by node.backend must be among them unless Node is set.
	Builtins []Builtin
	// Log is the logger; default slog.Default().
	Log *slog.Logger
	// Node, when set, is the node to use instead of node.backend's (a test's
	// own); the App does not close it.
	Node ledger.Node
	// NoWasm builds no WebAssembly runtime: built-ins only.
	NoWasm bool
	// Wasm, when set, adjusts the runtime's options (tests: a shared
	// compile cache, their CPU share, normal priority).
	Wasm func(*wasm.Options)
	// OutboundTimeout is the timeout of the host API's outbound requests;
	// default the host's.
	OutboundTimeout time.Duration
	// NoOutbox builds no event outbox and no live stream (then no event
	// reaches a plugin either).
	NoOutbox bool
	// OutboxReadEvery, when set, is the outbox's shortest time between two
	// reads of a consumer (outbox.Config.ReadEvery; tests); else the
	// outbox's default.
	OutboxReadEvery time.Duration
	// Sender tunes the host's durable sender (tests: shorter retries);
	// zero fields take its defaults.
	Sender host.SenderConfig
	// NoDelivery leaves the delivery of events to WebAssembly plugins off
	// (benchmarks drive it by hand); the built-ins' background work runs.
	NoDelivery bool
	// Version is Hearth's version, recorded in the backups it schedules.
	Version string
	// Metrics, when set, is the registry to count into (a test's); else
	// New makes one, whether or not metrics.listen is set.
	Metrics *metrics.Metrics
	// NoMetrics, without Metrics, counts nothing (a benchmark's side
	// without metrics); the stats route then says that metrics are off.
	NoMetrics bool
}

// OpenLedger builds the node that o.Node or node.backend names and the
// ledger over it, woken bus (nil for none): all that a command that only
// reads the ledger needs. Close the node, when it is an io.Closer and
// not o.Node, after use (CloseNode).
func OpenLedger(ctx context.Context, cfg config.Config, db *store.DB, bus *event.Bus, o Options) (*ledger.Service, error) {
	node := o.Node
	if node == nil {
		for _, b := range o.Builtins {
			if b.Node == nil || b.Backend != cfg.Node.Backend {
				continue
			}
			n, err := b.Node(ctx, cfg, db)
			if err != nil {
				return nil, fmt.Errorf("node.backend %s: %w", cfg.Node.Backend, err)
			}
			node = n
			break
		}
	}
	if node == nil {
		return nil, fmt.Errorf("node.backend %q is not available", cfg.Node.Backend)
	}
	return ledger.New(db, node, bus, ledger.Config{DefaultExpiry: cfg.InvoiceExpiry.Duration, Metrics: o.Metrics.Ledger()}, o.Log), nil
}

// CloseNode closes the ledger's node when it has a connection to close.
func CloseNode(led *ledger.Service) {
	if c, ok := led.Node().(io.Closer); ok {
		c.Close()
	}
}

// New builds the application of cfg over db (migrated). Nothing runs in
// the background until Start; Close releases what New built.
func New(ctx context.Context, cfg config.Config, db *store.DB, o Options) (_ *App, err error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	a := &App{Config: cfg, DB: db, Log: o.Log, Bus: event.NewBus(), Wallets: wallet.NewService(db), Keys: auth.NewKeys(db), opts: o}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	a.openMetrics(&o)
	if a.Ledger, err = OpenLedger(ctx, cfg, db, a.Bus, o); err != nil {
		return nil, err
	}
	a.Node = a.Ledger.Node()
	if a.Tokens, err = auth.NewTokens(ctx, db, cfg.Auth.TokenExpiry.Duration); err != nil {
		return nil, err
	}
	if !o.NoOutbox {
		if a.Outbox, err = outbox.New(ctx, db, outbox.Config{Wake: a.Bus, Alone: a.Ledger.Alone, ReadEvery: o.OutboxReadEvery, Log: o.Log}); err != nil {
			return nil, err
		}
		a.Hub = outbox.NewHub(a.Outbox)
	}
	if err := a.buildHost(); err != nil {
		return nil, err
	}
	a.watch()
	for _, b := range o.Builtins {
		if b.Add != nil {
			if err := b.Add(ctx, a); err != nil {
				return nil, fmt.Errorf("registering %s: %w", b.Name, err)
			}
		}
	}
	return a, nil
}

// kickOutbox tells the outbox, when there is one, that events committed.
func (a *App) kickOutbox() {
	if a.Outbox != nil {
		a.Outbox.Kick()
	}
}

// outboxHead is the outbox's head, nil without an outbox.
func (a *App) outboxHead() func() int64 {
	if a.Outbox == nil {
		return nil
	}
	return func() int64 {
		h, _ := a.Outbox.Head()
		return h
	}
}

// buildHost builds the host API, the runtime and the registry. What
// built-ins provide each other and the host (the Lightning Address
// resolver of the ln_address call, zaps, NIP-05 names) they provide to
// the registry when they are added, in any order.
func (a *App) buildHost() error {
	allow := a.Config.Plugins.AllowPrivateHosts
	a.Outbound = host.NewOutbound(host.OutboundConfig{AllowPrivate: allow, Timeout: a.opts.OutboundTimeout})
	sender := a.opts.Sender
	if sender.Paying == nil {
		sender.Paying = a.Ledger.PayingTime // the event streams give way to payments that queue
	}
	a.HostAPI = host.NewAPI(host.APIDeps{DB: a.DB, Ledger: a.Ledger, Wallets: a.Wallets, Outbound: a.Outbound,
		Credentials: a.Keys, KVKeys: a.Config.Plugins.KVKeys, Metrics: a.Metrics.PluginOwn(),
		Sender: sender, SendMetrics: a.Metrics.Sends(), EventsAdded: a.kickOutbox, OutboxHead: a.outboxHead(), Log: a.Log})
	deps := host.RegistryDeps{DB: a.DB, API: a.HostAPI, Wallets: a.Wallets, Log: a.Log}
	if !a.opts.NoWasm {
		o := wasm.Options{
			CacheDir: a.Config.PluginCacheDir(),
			PoolSize: a.Config.Plugins.PoolSize,
			CPUShare: a.Config.Plugins.CPUShare,
			CPUBurst: a.Config.Plugins.CPUBurst.Duration,
			Calls:    a.HostAPI,
			Metrics:  a.Metrics.Plugins(),
			Log:      a.Log,
		}
		if a.opts.Wasm != nil {
			a.opts.Wasm(&o)
		}
		rt, err := wasm.New(o)
		if err != nil {
			return err
		}
		a.Runtime, deps.Loader = rt, rt
	}
	a.Registry = host.NewRegistry(deps)
	a.Registry.SetCatalog(host.NewCatalog(a.Config.Plugins.Catalog, host.NewOutbound(host.OutboundConfig{AllowPrivate: allow,
		Timeout: 2 * time.Minute, MaxResponseBytes: a.Config.Plugins.MaxWasmBytes})))
	return nil
}

// Close stops what Start runs (Stop, waiting as long as it takes) and
// releases what New built; the database stays open. It may be called more
// than once.
func (a *App) Close() {
	if a.closed {
		return
	}
	a.closed = true
	a.Stop(context.Background()) //nolint:errcheck // waits for the work to end: no error
	var errs []error
	if a.Registry != nil {
		a.Registry.Close(context.Background())
	}
	if a.Runtime != nil {
		errs = append(errs, a.Runtime.Close(context.Background()))
	}
	if a.Tokens != nil {
		a.Tokens.Close()
	}
	if a.Ledger != nil && a.opts.Node == nil {
		CloseNode(a.Ledger)
	}
	if err := errors.Join(errs...); err != nil {
		a.Log.Warn("closing the application", "err", err)
	}
}
