package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// pluginHost is the running plugin host.
type pluginHost struct {
	registry *host.Registry
	runtime  *wasm.Runtime
	cancel   context.CancelFunc
	done     chan struct{}
}

// startPlugins builds the host API, the wazero runtime and the registry,
// registers the built-in plugins (an explicit list), starts the installed
// plugins and delivers the outbox's events to them until stop.
func startPlugins(ctx context.Context, cfg config.Config, db *store.DB, led *ledger.Service, box *outbox.Outbox, log *slog.Logger) (*pluginHost, error) {
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts})
	wallets := wallet.NewService(db)
	addresses, err := newLNURL(cfg, db, led, log)
	if err != nil {
		return nil, err
	}
	api := host.NewAPI(host.APIDeps{DB: db, Ledger: led, Wallets: wallets, Outbound: out,
		LNURL: addresses.Client(), Log: log})
	rt, err := wasm.New(wasm.Options{
		CacheDir: cfg.PluginCacheDir(),
		PoolSize: cfg.Plugins.PoolSize,
		CPUShare: cfg.Plugins.CPUShare,
		CPUBurst: cfg.Plugins.CPUBurst.Duration,
		Calls:    api,
		Log:      log,
	})
	if err != nil {
		return nil, err
	}
	reg := host.NewRegistry(host.RegistryDeps{DB: db, API: api, Loader: rt, Wallets: wallets, Log: log})
	// Built-in plugins.
	if cfg.Node.Backend == "embedded" {
		if _, err := reg.RegisterBuiltin(embedded.Manifest(), nil, ""); err != nil {
			rt.Close(ctx)
			return nil, fmt.Errorf("registering the embedded node: %w", err)
		}
	}
	if err := addWebhooks(cfg, db, reg, log); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("registering webhooks: %w", err)
	}
	if err := addLNURL(addresses, reg, api, led); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("registering lnurl: %w", err)
	}
	if _, err := addNostr(ctx, cfg, db, reg, addresses, log); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("registering nostr: %w", err)
	}
	if _, err := addOnchain(cfg, db, reg, led, log); err != nil {
		rt.Close(ctx)
		return nil, fmt.Errorf("registering onchain: %w", err)
	}
	if err := reg.Load(ctx); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &pluginHost{registry: reg, runtime: rt, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		builtins := make(chan struct{})
		go func() { defer close(builtins); reg.RunBuiltins(ctx, box) }()
		reg.Run(ctx, box)
		<-builtins
	}()
	return h, nil
}

func (h *pluginHost) stop() {
	h.cancel()
	<-h.done
	h.registry.Close(context.Background())
	h.runtime.Close(context.Background())
}
