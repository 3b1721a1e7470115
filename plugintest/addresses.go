package plugintest

import (
	"context"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/contract"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
)

// AddressesPlugin is the built-in of the harness that provides the
// Lightning Address service (the ln_address host function) with the
// Lightning Address plugin's LNURL-pay client, without the rest of that
// plugin (its routes, its addresses).
const AddressesPlugin = "ln-address-client"

// provideAddresses adds AddressesPlugin to a's registry.
func provideAddresses(ctx context.Context, a *app.App, allowPrivate bool) error {
	d := host.Descriptor{
		Manifest: &host.Manifest{Name: AddressesPlugin, Version: "1.0.0", ABI: host.ABIVersion,
			Description: "The harness's Lightning Address resolver.",
			Scopes:      []string{host.HTTPAny, host.ProvidesPrefix + contract.LightningAddress}},
		Build: func(_ context.Context, env *host.Env) (host.Builtin, error) {
			env.Settings.AllowPrivateHosts = allowPrivate
			out, err := env.Outbound(host.OutboundConfig{})
			if err != nil {
				return host.Builtin{}, err
			}
			return host.Builtin{}, env.Provide(contract.AddressService(lnurl.NewClient(out, env, allowPrivate)))
		},
	}
	_, err := a.Registry.AddFeature(ctx, d, a.Environment())
	return err
}
