// Package builtins are the built-in plugins Hearth ships, each as the
// application (app) wires it: its section of the configuration, how it is
// built and how it joins the host. cmd/hearth lists them. They are apart
// from app so that what builds an App with none of them (the plugin
// authors' harness, the API's tests) does not build them.
package builtins

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/onchain"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// Features are the built-ins of `hearth serve` beside its node backends,
// in the order the application wires them: what cmd/hearth runs, and
// what cmd/loadbench runs beside the embedded node so that its figures
// include their work.
func Features() []app.Builtin {
	return []app.Builtin{
		Webhooks(nil),
		LNURL(),
		Nostr(nil), // after LNURL: zaps come through its callback
		Onchain(nil),
		NWC(nil),
	}
}

// A tune function, when not nil, adjusts a plugin's configuration after
// the file and the environment (tests: shorter delays).

// Webhooks is the built-in webhooks plugin ([webhooks]): its routes join
// the API, and its delivery runs on one replica at a time. It sends
// through an outbound client of its own: the host's guard, with the
// webhooks' timeout and response cap.
func Webhooks(tune func(*webhooks.Config)) app.Builtin {
	return app.Builtin{
		Name: "webhooks",
		Sections: func() []config.Section {
			return []config.Section{app.NewSection(webhooks.SectionKey, webhooks.DefaultSettings())}
		},
		Validate: func(cfg config.Config) error { return webhooksSettings(cfg).Validate() },
		Add: func(_ context.Context, a *app.App) error {
			allow := a.Config.Plugins.AllowPrivateHosts
			c := webhooks.ConfigOf(webhooksSettings(a.Config), allow)
			if tune != nil {
				tune(&c)
			}
			out := host.NewOutbound(host.OutboundConfig{AllowPrivate: allow, Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10,
				Grant: grantOf(a, webhooks.Name)})
			p := webhooks.New(webhooks.Deps{DB: a.DB, Outbound: out, WalletExists: a.WalletExists, Config: c, Log: a.Log,
				Metrics: a.Metrics.Webhooks()})
			_, err := a.Registry.AddBuiltin(p.Builtin())
			return err
		},
	}
}

func webhooksSettings(cfg config.Config) webhooks.Settings {
	return app.Section(cfg, webhooks.SectionKey, webhooks.DefaultSettings())
}

// LNURL is the built-in Lightning Address and LNURL-pay plugin ([lnurl],
// with the instance's domain and public_url). Its client is the host's
// Lightning Address resolver (WebAssembly plugins' ln_address call), so
// it is built before the host API; then its routes join the API, it acts
// through the host API bound to it, and the ledger asks it about payment
// inputs that are no BOLT11 invoice.
func LNURL() app.Builtin {
	return app.Builtin{
		Name: "lnurl",
		Sections: func() []config.Section {
			return []config.Section{app.NewSection(lnurl.SectionKey, lnurl.DefaultSettings())}
		},
		Validate: func(cfg config.Config) error { return LNURLConfig(cfg).Validate() },
		Add: func(ctx context.Context, a *app.App) error {
			c := LNURLConfig(a.Config)
			if err := c.Validate(); err != nil {
				return err
			}
			out := host.NewOutbound(host.OutboundConfig{AllowPrivate: c.AllowPrivate, Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10,
				Grant: grantOf(a, lnurl.Name)})
			p := lnurl.New(lnurl.Deps{DB: a.DB, Outbound: out, Decoder: a.Node, WalletExists: a.WalletExists,
				Zapper: a.Registry.Zapper, Config: c, Log: a.Log})
			plugin, err := a.Registry.AddBuiltin(p.Builtin())
			if err != nil {
				return err
			}
			p.Bind(a.HostAPI.For(plugin))
			a.Registry.ProvideAddressResolver(p.Client())
			a.Registry.ProvideNostrNames(p)
			return p.Register(ctx)
		},
	}
}

// LNURLConfig is the LNURL plugin's configuration: the instance's domain
// and public URL and the [lnurl] section.
func LNURLConfig(cfg config.Config) lnurl.Config {
	s := app.Section(cfg, lnurl.SectionKey, lnurl.DefaultSettings())
	return lnurl.ConfigOf(cfg.Domain, cfg.PublicURL, s, cfg.Plugins.AllowPrivateHosts)
}

// Nostr is the built-in Nostr plugin ([nostr]), joined to the LNURL plugin
// (listed before it), neither importing the other: the LNURL callback
// hands zap requests to it (host.Zapper) and its NIP-05 route reads names
// from the addresses (host.NostrNames). Its key is loaded (made at the
// first start) before any route serves. Relays are dialled through an
// outbound client of its own: the host's guard, with the relays' timeout.
func Nostr(tune func(*nostr.Config)) app.Builtin {
	return app.Builtin{
		Name: "nostr",
		Sections: func() []config.Section {
			return []config.Section{app.NewSection(nostr.SectionKey, nostr.DefaultSettings())}
		},
		Validate: func(cfg config.Config) error { return NostrConfig(cfg).Validate() },
		Add: func(ctx context.Context, a *app.App) error {
			c := NostrConfig(a.Config)
			if tune != nil {
				tune(&c)
			}
			out := host.NewOutbound(host.OutboundConfig{AllowPrivate: c.AllowPrivate, Timeout: c.Timeout, Grant: grantOf(a, nostr.Name)})
			p := nostr.New(nostr.Deps{DB: a.DB, Outbound: out, Names: a.Registry.NostrNames, Config: c, Log: a.Log,
				Relays: a.Metrics.Relays()})
			if err := p.Start(ctx); err != nil {
				return err
			}
			if _, err := a.Registry.AddBuiltin(p.Builtin()); err != nil {
				return err
			}
			a.Registry.ProvideZapper(p)
			a.Registry.ProvideNostrSigner(p)
			return nil
		},
	}
}

// NostrConfig is the Nostr plugin's configuration: the [nostr] section.
func NostrConfig(cfg config.Config) nostr.Config {
	s := app.Section(cfg, nostr.SectionKey, nostr.DefaultSettings())
	return nostr.Config{DefaultRelays: s.Relays(), MaxRelays: s.MaxRelays, Timeout: 10 * time.Second,
		RetryWindow: time.Duration(s.RetryHours) * time.Hour, AllowPrivate: cfg.Plugins.AllowPrivateHosts}
}

// Onchain is the built-in on-chain wallet ([onchain], with the instance's
// bitcoin_address_type): its routes join the API, and it follows the
// chain on one replica at a time. With a node that has no on-chain wallet
// (embedded) its routes answer that the on-chain wallet needs an lnd or
// cln node. It resolves bitcoin addresses and BIP21 URIs as payment input.
func Onchain(tune func(*onchain.Config)) app.Builtin {
	return app.Builtin{
		Name: "onchain",
		Sections: func() []config.Section {
			return []config.Section{app.NewSection(onchain.SectionKey, onchain.DefaultSettings())}
		},
		Validate: func(cfg config.Config) error { return onchainSettings(cfg).Validate() },
		Add: func(ctx context.Context, a *app.App) error {
			c := onchain.ConfigOf(onchainSettings(a.Config), a.Config.BitcoinAddressType)
			if tune != nil {
				tune(&c)
			}
			var chain ledger.ChainWallet
			if a.Config.Node.Backend != "embedded" {
				chain = ledger.OnchainOf(a.Node)
			}
			p := onchain.New(onchain.Deps{DB: a.DB, Chain: chain, Node: a.Node,
				WalletExists: a.WalletExists, Config: c, Log: a.Log})
			plugin, err := a.Registry.AddBuiltin(p.Builtin())
			if err != nil {
				return err
			}
			api := a.HostAPI.For(plugin)
			p.Bind(api)
			return api.AddResolver(ctx, p)
		},
	}
}

func onchainSettings(cfg config.Config) onchain.Settings {
	return app.Section(cfg, onchain.SectionKey, onchain.DefaultSettings())
}

// grantOf is the grant check of a built-in's outbound client: the
// built-in's capabilities (http:any, http:outbound:<host>) as the registry
// holds them at each request. The registry is built after the LNURL
// plugin (whose client the host API uses), so it is looked up then.
func grantOf(a *app.App, name string) func(host string) bool {
	return func(host string) bool { return a.Registry != nil && a.Registry.AllowsHost(name, host) }
}
