package rates

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// Name is the plugin's name.
const Name = "rates"

// Manifest is the plugin's manifest: it reads public price APIs (any
// host: the operator names the sources, mirrors included), serves
// /v1/rates and /v1/me/currency among Hearth's API, gives the ledger its
// rates, shows each wallet's currency on its record, and values the
// settled records in it at the rate of their time (history.go).
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "Exchange rates: the price of the bitcoin in the operator's currencies, the median of public price sources, for amounts in a currency.",
		Scopes:      []string{host.HTTPAny, host.ServeAPI, host.LedgerPrices, host.PresentWallets, host.ValueRecords}}
}

// Descriptor is the plugin as the host builds it ([rates]). tune, when
// set, adjusts its configuration after the file and the environment
// (tests: the sources at a local price server, the clock).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(), Section: SectionKey, Defaults: host.Defaults(DefaultSettings()),
		Validate: func(s host.Settings) error { return host.SectionOf(s, DefaultSettings()).Validate() },
		Build: func(ctx context.Context, env *host.Env) (host.Builtin, error) {
			c, err := ConfigOf(host.SectionOf(env.Settings, DefaultSettings()))
			if err != nil {
				return host.Builtin{}, err
			}
			if tune != nil {
				tune(&c)
			}
			out, err := env.Outbound(host.OutboundConfig{Timeout: 10 * time.Second, MaxResponseBytes: 256 << 10})
			if err != nil {
				return host.Builtin{}, err
			}
			m, err := NewMetrics(env.Metrics.Registerer())
			if err != nil {
				return host.Builtin{}, err
			}
			r := New(c, out, m, env.Log)
			r.db = env.Tables()
			if err := env.Host.SetPrices(ctx, r); err != nil {
				return host.Builtin{}, err
			}
			return host.Builtin{Routes: append(r.routes(), r.currencyRoutes()...), PresentWallets: r.presentWallets,
				ValueRecords: r.valueRecords, Lead: r.lead}, nil
		}}
}

// routes are GET /v1/rates and GET /v1/rates/{currency}: public unless
// the operator says otherwise.
func (r *Rates) routes() []host.BuiltinRoute {
	access := host.Public
	if !r.cfg.Public {
		access = host.User
	}
	return []host.BuiltinRoute{
		{Method: http.MethodGet, Path: "/v1/rates", Access: access, Status: http.StatusOK, Resp: []ledger.Rate{},
			Summary: "The rates of every currency offered that has a fresh one: sat per unit",
			Handle: func(ctx context.Context, _ *host.BuiltinRequest) (any, error) {
				return r.All(ctx), nil
			}},
		{Method: http.MethodGet, Path: "/v1/rates/{currency}", Access: access, Status: http.StatusOK, Resp: ledger.Rate{},
			Summary: "The rate of one currency: sat per unit; 503 rates_unavailable when no source is fresh",
			Handle: func(ctx context.Context, req *host.BuiltinRequest) (any, error) {
				return r.Rate(ctx, req.Params["currency"])
			}},
	}
}

// All are the rates of every currency offered that has a fresh one, read
// at once, in the order the operator lists the currencies.
func (r *Rates) All(ctx context.Context) []ledger.Rate {
	rates := make([]ledger.Rate, len(r.cfg.Currencies))
	var wg sync.WaitGroup
	for i, code := range r.cfg.Currencies {
		wg.Go(func() {
			if rate, err := r.Rate(ctx, code); err == nil {
				rates[i] = rate
			}
		})
	}
	wg.Wait()
	out := []ledger.Rate{}
	for _, rate := range rates {
		if rate.Rate != "" {
			out = append(out, rate)
		}
	}
	return out
}
