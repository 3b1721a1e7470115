package rates

import (
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/lib/fiat"
)

// SectionKey is the plugin's table of the configuration.
const SectionKey = "rates"

// Settings is the plugin's section of the configuration, [rates] (and
// HEARTH_RATES_* in the environment). Lists are comma-separated, so that
// the file and the environment read alike.
type Settings struct {
	// Sources are the price sources read, by name (kraken, bitstamp,
	// coinbase, mempool, yadio), each optionally at a base URL of its own
	// (a mirror): "kraken,coinbase=https://prices.example". "" reads none
	// (only fixed rates).
	Sources string `toml:"sources"`
	// Currencies are the currencies offered, as ISO 4217 codes.
	Currencies string `toml:"currencies"`
	// Refresh is the age past which a rate is read again, in the
	// background while it is still served. Default 1m.
	Refresh config.Duration `toml:"refresh"`
	// MaxAge is the age past which a rate is never used. Default 10m.
	MaxAge config.Duration `toml:"max_age"`
	// MaxDeviation is the share by which a source may stray from the
	// median of all before it is left out. Default 0.1 (10 %).
	MaxDeviation float64 `toml:"max_deviation"`
	// Fixed sets prices by hand, as the price of one bitcoin:
	// "USD:95000,EUR:88000". A currency priced by hand reads no source, and
	// its rate says so (fixed, sources ["fixed"]).
	Fixed string `toml:"fixed"`
	// Public serves GET /v1/rates without a credential. Default true.
	Public bool `toml:"public"`
	// Currency is the instance's currency: what a wallet whose owner
	// chose none reads amounts in. Default the first of Currencies.
	Currency string `toml:"currency"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings {
	return Settings{Sources: "kraken,bitstamp,coinbase,mempool,yadio", Currencies: "USD,EUR,GBP,CAD,CHF,AUD,JPY",
		Refresh: config.Duration{Duration: time.Minute}, MaxAge: config.Duration{Duration: 10 * time.Minute},
		MaxDeviation: 0.1, Public: true}
}

// Validate checks the settings.
func (s Settings) Validate() error {
	_, err := ConfigOf(s)
	return err
}

// Config is the plugin's configuration as it runs.
type Config struct {
	// Sources are the sources read, in order.
	Sources []Source
	// Currencies are those offered: from sources, or fixed.
	Currencies []string
	// Fixed are the prices set by hand, by currency.
	Fixed map[string]*big.Rat
	// Default is the instance's currency (Settings.Currency), "" when it
	// offers none.
	Default      string
	Refresh      time.Duration
	MaxAge       time.Duration
	MaxDeviation float64
	Public       bool
	// Now is the clock (tests move it); default time.Now.
	Now func() time.Time
}

// ConfigOf reads s into a Config.
func ConfigOf(s Settings) (Config, error) {
	c := Config{Refresh: s.Refresh.Duration, MaxAge: s.MaxAge.Duration, MaxDeviation: s.MaxDeviation, Public: s.Public,
		Fixed: map[string]*big.Rat{}, Now: time.Now}
	if c.Refresh < time.Second || c.MaxAge < c.Refresh {
		return c, errors.New("rates.refresh must be at least 1s and rates.max_age at least rates.refresh")
	}
	if c.MaxDeviation <= 0 || c.MaxDeviation >= 1 {
		return c, errors.New("rates.max_deviation is a share between 0 and 1, e.g. 0.1")
	}
	for _, item := range list(s.Sources) {
		name, base, _ := strings.Cut(item, "=")
		src, ok := sourceNamed(strings.ToLower(name))
		if !ok {
			return c, fmt.Errorf("rates.sources: unknown source %q (want %s)", name, strings.Join(SourceNames(), ", "))
		}
		if base != "" {
			u, err := url.Parse(base)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return c, fmt.Errorf("rates.sources: %s's base %q is no http(s) URL", name, base)
			}
			src.Base = strings.TrimRight(base, "/")
		}
		if slices.ContainsFunc(c.Sources, func(o Source) bool { return o.Name == src.Name }) {
			return c, fmt.Errorf("rates.sources names %s twice", src.Name)
		}
		c.Sources = append(c.Sources, src)
	}
	for _, item := range list(s.Currencies) {
		code, ok := fiat.Currency(item)
		if !ok {
			return c, fmt.Errorf("rates.currencies: %q is no ISO 4217 code", item)
		}
		if !slices.Contains(c.Currencies, code) {
			c.Currencies = append(c.Currencies, code)
		}
	}
	for _, item := range list(s.Fixed) {
		cur, price, _ := strings.Cut(item, ":")
		code, ok := fiat.Currency(cur)
		p, err := fiat.ParseDecimal(price)
		if !ok || err != nil || p.Sign() <= 0 {
			return c, fmt.Errorf("rates.fixed: %q is no CUR:price, e.g. USD:95000", item)
		}
		c.Fixed[code] = p
		if !slices.Contains(c.Currencies, code) {
			c.Currencies = append(c.Currencies, code)
		}
	}
	switch code, ok := fiat.Currency(s.Currency); {
	case s.Currency == "" && len(c.Currencies) > 0:
		c.Default = c.Currencies[0]
	case s.Currency == "":
	case !ok || !slices.Contains(c.Currencies, code):
		return c, fmt.Errorf("rates.currency %q is not among the currencies offered %v", s.Currency, c.Currencies)
	default:
		c.Default = code
	}
	return c, nil
}

// list splits a comma-separated setting, dropping blanks.
func list(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
