package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
)

// newLNURL builds the built-in Lightning Address and LNURL-pay plugin. Its
// client is the host's AddressResolver (WebAssembly plugins' ln_address
// call), so it is built before the host API; addLNURL registers it.
func newLNURL(cfg config.Config, db *store.DB, led *ledger.Service, log *slog.Logger) (*lnurl.Plugin, error) {
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
	wallets := wallet.NewService(db)
	c := lnurlConfig(cfg)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return lnurl.New(lnurl.Deps{
		DB:       db,
		Outbound: out,
		Decoder:  led.Node(),
		WalletExists: func(ctx context.Context, id string) error {
			_, err := wallets.Get(ctx, id)
			return err
		},
		Config: c,
		Log:    log,
	}), nil
}

// addLNURL registers the plugin: its routes join the API, it acts through
// the host API bound to it, and the ledger asks it about payment inputs
// that are no BOLT11 invoice.
func addLNURL(p *lnurl.Plugin, reg *host.Registry, api *host.API, led *ledger.Service) error {
	plugin, err := reg.AddBuiltin(p.Builtin())
	if err != nil {
		return err
	}
	p.Bind(api.For(plugin))
	p.Register(led)
	return nil
}
