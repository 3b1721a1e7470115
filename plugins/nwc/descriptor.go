package nwc

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/host"
)

// Descriptor is the Nostr Wallet Connect plugin as the host builds it
// ([nwc]): its routes join the API, its service key is loaded (made at the
// first start) before any route serves, and it serves its relays on one
// replica at a time. Relays are dialled through an outbound client of its
// grant; get_info asks the node (node:info). tune, when set, adjusts its
// configuration after the file and the environment (tests).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return ConfigFrom(s).Validate() },
		Build: func(ctx context.Context, env *host.Env) (host.Builtin, error) {
			c := ConfigFrom(env.Settings)
			if tune != nil {
				tune(&c)
			}
			out, err := env.Outbound(host.OutboundConfig{Timeout: c.Timeout})
			if err != nil {
				return host.Builtin{}, err
			}
			info, err := env.NodeInfo()
			if err != nil {
				return host.Builtin{}, err
			}
			p := New(Deps{DB: env.Tables(), Outbound: out, NodeInfo: info, Decoder: env, Config: c, Log: env.Log,
				Relays: env.Metrics.Relays()})
			if err := p.Start(ctx); err != nil {
				return host.Builtin{}, err
			}
			p.Bind(env.Host)
			return p.Builtin(), nil
		}}
}

// ConfigFrom is the plugin's Config of the settings: the [nwc] section.
func ConfigFrom(s host.Settings) Config {
	st := host.SectionOf(s, DefaultSettings())
	return Config{Relays: st.RelayList(), AppRelays: st.AppRelayList(), Timeout: 10 * time.Second,
		RetryWindow: time.Duration(st.RetryHours) * time.Hour, AllowPrivate: s.AllowPrivateHosts}
}
