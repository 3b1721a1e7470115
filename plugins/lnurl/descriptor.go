package lnurl

import (
	"context"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/contract"
	"github.com/hearthwallet/hearth/host"
)

// Descriptor is the Lightning Address and LNURL-pay plugin as the host
// builds it ([lnurl], with the instance's domain and public_url). Its
// routes join the API; it provides the Lightning Address resolver (which
// answers the ABI's ln_address) and the NIP-05 directory; it uses the
// zaps service when a plugin provides one; and the ledger asks it about
// payment inputs that are no BOLT11 invoice.
func Descriptor() host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return ConfigFrom(s).Validate() },
		Build:    build}
}

// ConfigFrom is the plugin's Config of the settings: the instance's domain
// and public URL and the [lnurl] section.
func ConfigFrom(s host.Settings) Config {
	return ConfigOf(s.Domain, s.PublicURL, host.SectionOf(s, DefaultSettings()), s.AllowPrivateHosts)
}

func build(ctx context.Context, env *host.Env) (host.Builtin, error) {
	c := ConfigFrom(env.Settings)
	if err := c.Validate(); err != nil {
		return host.Builtin{}, err
	}
	out, err := env.Outbound(host.OutboundConfig{Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
	if err != nil {
		return host.Builtin{}, err
	}
	zaps, err := host.Use[contract.Zapper](env, contract.Zaps)
	if err != nil {
		return host.Builtin{}, err
	}
	p := New(Deps{DB: env.Tables(), Outbound: out, Decoder: env, WalletExists: env.WalletExists, Config: c, Log: env.Log,
		Zapper: func() contract.Zapper {
			z, _ := zaps()
			return z
		}})
	p.Bind(env.Host)
	if err := env.Provide(contract.AddressService(p.Client())); err != nil {
		return host.Builtin{}, err
	}
	if err := env.Provide(host.Service{Name: contract.NostrNames, Value: contract.Names(p)}); err != nil {
		return host.Builtin{}, err
	}
	if err := p.Register(ctx); err != nil {
		return host.Builtin{}, fmt.Errorf("adding the payment-input resolver: %w", err)
	}
	return p.Builtin(), nil
}
