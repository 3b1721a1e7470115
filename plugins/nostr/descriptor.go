package nostr

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/contract"
	"github.com/hearthwallet/hearth/host"
)

// Descriptor is the Nostr plugin as the host builds it ([nostr]). Its key
// is loaded (made at the first start) before any route serves; it
// provides the zaps service (which the LNURL-pay callback uses) and the
// instance's signer (which answers the ABI's nostr_sign), and uses the
// NIP-05 directory when a plugin provides one. Relays are dialled through
// an outbound client of its grant. tune, when set, adjusts its
// configuration after the file and the environment (tests: shorter
// delays).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return ConfigFrom(s).Validate() },
		Build: func(ctx context.Context, env *host.Env) (host.Builtin, error) {
			c := ConfigFrom(env.Settings)
			if tune != nil {
				tune(&c)
			}
			return build(ctx, env, c)
		}}
}

// ConfigFrom is the plugin's Config of the settings: the [nostr] section.
func ConfigFrom(s host.Settings) Config {
	st := host.SectionOf(s, DefaultSettings())
	return Config{DefaultRelays: st.Relays(), MaxRelays: st.MaxRelays, Timeout: 10 * time.Second,
		RetryWindow: time.Duration(st.RetryHours) * time.Hour, AllowPrivate: s.AllowPrivateHosts}
}

func build(ctx context.Context, env *host.Env, c Config) (host.Builtin, error) {
	out, err := env.Outbound(host.OutboundConfig{Timeout: c.Timeout})
	if err != nil {
		return host.Builtin{}, err
	}
	names, err := host.Use[contract.Names](env, contract.NostrNames)
	if err != nil {
		return host.Builtin{}, err
	}
	p := New(Deps{DB: env.Tables(), Outbound: out, Config: c, Log: env.Log, Relays: env.Metrics.Relays(),
		Names: func() contract.Names {
			n, _ := names()
			return n
		}})
	if err := p.Start(ctx); err != nil {
		return host.Builtin{}, err
	}
	p.Bind(env.Host)
	if err := env.Provide(host.Service{Name: contract.Zaps, Value: contract.Zapper(p)}); err != nil {
		return host.Builtin{}, err
	}
	if err := env.Provide(contract.SignerService(p)); err != nil {
		return host.Builtin{}, err
	}
	return p.Builtin(), nil
}
