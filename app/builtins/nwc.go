package builtins

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/nwc"
)

// NWC is the built-in Nostr Wallet Connect plugin ([nwc]): its routes join
// the API, its service key is loaded (made at the first start) before any
// route serves, and it serves its relays on one replica at a time. Relays
// are dialled through an outbound client of its own: the host's guard.
func NWC(tune func(*nwc.Config)) app.Builtin {
	return app.Builtin{
		Name: "nwc",
		Sections: func() []config.Section {
			return []config.Section{app.NewSection(nwc.SectionKey, nwc.DefaultSettings())}
		},
		Validate: func(cfg config.Config) error { return NWCConfig(cfg).Validate() },
		Add: func(ctx context.Context, a *app.App) error {
			c := NWCConfig(a.Config)
			if tune != nil {
				tune(&c)
			}
			out := host.NewOutbound(host.OutboundConfig{AllowPrivate: c.AllowPrivate, Timeout: c.Timeout, Grant: grantOf(a, nwc.Name)})
			p := nwc.New(nwc.Deps{DB: a.DB, Outbound: out, NodeInfo: a.Node.Info, Decoder: a.Node, Config: c, Log: a.Log,
				Relays: a.Metrics.Relays()})
			if err := p.Start(ctx); err != nil {
				return err
			}
			plugin, err := a.Registry.AddBuiltin(p.Builtin())
			if err != nil {
				return err
			}
			p.Bind(a.HostAPI.For(plugin))
			return nil
		},
	}
}

// NWCConfig is the NWC plugin's configuration: the [nwc] section.
func NWCConfig(cfg config.Config) nwc.Config {
	s := app.Section(cfg, nwc.SectionKey, nwc.DefaultSettings())
	return nwc.Config{Relays: s.RelayList(), AppRelays: s.AppRelayList(), Timeout: 10 * time.Second,
		RetryWindow: time.Duration(s.RetryHours) * time.Hour, AllowPrivate: cfg.Plugins.AllowPrivateHosts}
}
