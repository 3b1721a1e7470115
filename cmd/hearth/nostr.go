package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
)

// addNostr registers the built-in Nostr plugin and joins it to the LNURL
// plugin, neither importing the other: the LNURL callback hands zap
// requests to it (host.Zapper) and its NIP-05 route reads names from the
// addresses (host.NostrNames). Its key is loaded (made at the first start)
// before any route serves. Relays are dialled through an outbound client
// of its own: the host's guard, with the relays' timeout.
func addNostr(ctx context.Context, cfg config.Config, db *store.DB, reg *host.Registry, addresses *lnurl.Plugin, log *slog.Logger) (*nostr.Plugin, error) {
	c := nostrConfig(cfg)
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: cfg.Plugins.AllowPrivateHosts, Timeout: c.Timeout})
	p := nostr.New(nostr.Deps{DB: db, Outbound: out, Names: addresses, Config: c, Log: log})
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	if _, err := reg.AddBuiltin(p.Builtin()); err != nil {
		return nil, err
	}
	addresses.SetZapper(p)
	return p, nil
}

// nostrConfig is the Nostr plugin's configuration: the [nostr] section.
func nostrConfig(cfg config.Config) nostr.Config {
	s := nostr.DefaultSettings()
	if c, ok := cfg.Builtin(nostr.SectionKey).(*nostr.Settings); ok {
		s = *c
	}
	return nostr.Config{DefaultRelays: s.Relays(), MaxRelays: s.MaxRelays, Timeout: 10 * time.Second,
		RetryWindow: time.Duration(s.RetryHours) * time.Hour, AllowPrivate: cfg.Plugins.AllowPrivateHosts}
}
