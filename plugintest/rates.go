package plugintest

import (
	"context"
	"fmt"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/plugins/rates"
)

// fixRates runs Hearth's rates plugin in a with prices fixed by hand
// (rates.fixed) and no source: the ledger converts amounts in those
// currencies, and plugins read the rates, as on a server.
func fixRates(ctx context.Context, a *app.App, fixed string) error {
	s := rates.DefaultSettings()
	s.Sources, s.Fixed = "", fixed
	cfg, err := rates.ConfigOf(s)
	if err != nil {
		return fmt.Errorf("plugintest.Options.Rates: %w", err)
	}
	d := rates.Descriptor(func(c *rates.Config) { *c = cfg })
	if _, err := a.Registry.AddFeature(ctx, d, a.Environment()); err != nil {
		return fmt.Errorf("the rates plugin: %w", err)
	}
	return nil
}
