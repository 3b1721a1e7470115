package webhooks

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/host"
)

// Descriptor is the webhooks plugin as the host builds it ([webhooks]):
// its routes join the API, and its webhooks are the host's event streams,
// delivered by the host's sender on one replica at a time. It sends through an outbound client of its grant, with the
// webhooks' timeout and response cap, and counts its attempts in a family
// of its own in the server's registry (metrics.go). tune, when set, adjusts its
// configuration after the file and the environment (tests: shorter
// delays).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return host.SectionOf(s, DefaultSettings()).Validate() },
		Build: func(_ context.Context, env *host.Env) (host.Builtin, error) {
			c := ConfigOf(host.SectionOf(env.Settings, DefaultSettings()), env.Settings.AllowPrivateHosts)
			if tune != nil {
				tune(&c)
			}
			// As many idle connections per host as the streams have requests
			// in flight: many webhooks often share one receiver.
			out, err := env.Outbound(host.OutboundConfig{Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10,
				IdlePerHost: host.DefaultStreamParallel})
			if err != nil {
				return host.Builtin{}, err
			}
			m, err := NewMetrics(env.Metrics.Registerer())
			if err != nil {
				return host.Builtin{}, err
			}
			p := New(Deps{DB: env.Tables(), Host: env.Host, Outbound: out, WalletExists: env.WalletExists, EventTypes: env.Host.EventTypes, Config: c, Log: env.Log,
				Metrics: m})
			return p.Builtin(), nil
		}}
}
