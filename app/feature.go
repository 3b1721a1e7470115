package app

import (
	"context"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/host"
)

// Feature is the built-in that d describes as the application wires it:
// its section of the configuration, checked once loaded, and the built-in
// the registry builds in its environment (host.Registry.AddFeature).
func Feature(d host.Descriptor) Builtin {
	return Builtin{
		Name: d.Manifest.Name,
		Sections: func() []config.Section {
			if s, ok := d.ConfigSection(); ok {
				return []config.Section{s}
			}
			return nil
		},
		Validate: func(cfg config.Config) error {
			if d.Validate == nil {
				return nil
			}
			return d.Validate(host.SettingsOf(cfg, d.Section))
		},
		Add: func(ctx context.Context, a *App) error {
			_, err := a.Registry.AddFeature(ctx, d, a.Environment())
			return err
		},
	}
}

// Features are the built-ins ds describe, in their order.
func Features(ds ...host.Descriptor) []Builtin {
	out := make([]Builtin, len(ds))
	for i, d := range ds {
		out[i] = Feature(d)
	}
	return out
}

// Environment is what the registry builds the built-ins' environments
// from: each built-in gets of it only what its capabilities cover.
func (a *App) Environment() host.Environment {
	return host.Environment{Config: a.Config, DB: a.DB, Node: a.Node, Metrics: a.Metrics, WalletExists: a.WalletExists, Log: a.Log}
}
