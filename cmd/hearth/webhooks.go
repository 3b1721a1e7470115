package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// addWebhooks registers the built-in webhooks plugin: its routes join the
// API, and its delivery runs on one replica at a time (RunBuiltins). It
// sends through an outbound client of its own: the host's guard, with the
// webhooks' timeout and response cap.
func addWebhooks(cfg config.Config, db *store.DB, reg *host.Registry, log *slog.Logger) error {
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
	wallets := wallet.NewService(db)
	p := webhooks.New(webhooks.Deps{
		DB:       db,
		Outbound: out,
		WalletExists: func(ctx context.Context, id string) error {
			_, err := wallets.Get(ctx, id)
			return err
		},
		Config: webhooks.Config{
			RetryWindow:  cfg.Webhooks.RetryWindow.Duration,
			DisableAfter: time.Duration(cfg.Webhooks.DisableAfterDays) * 24 * time.Hour,
			FirstRetry:   cfg.Webhooks.FirstRetry.Duration,
			AllowPrivate: cfg.Plugins.AllowPrivateHosts,
		},
		Log: log,
	})
	_, err := reg.AddBuiltin(p.Builtin())
	return err
}
