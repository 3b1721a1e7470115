package ledger

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/lib/fiat"
)

// Amounts in a currency. The ledger counts msat alone; an amount a user
// gives in a currency is converted once, at the rate of that moment, and
// the record keeps what was asked for and at what rate (Fiat). Where the
// rates come from is a plugin's business (Prices, registered through the
// host with ledger:prices); without one, every amount in a currency is
// refused as rates_unavailable.

// Errors of amounts in a currency.
var (
	ErrRatesUnavailable = fault.New(fault.Unavailable, "rates_unavailable", "No fresh exchange rate for this currency")
	ErrUnknownCurrency  = fault.New(fault.Unprocessable, "unknown_currency", "This instance has no exchange rate for that currency")
)

// Rate is the price of the bitcoin in a currency at a moment, as sat per
// unit of the currency.
type Rate struct {
	Currency string `json:"currency"`
	// Rate is sat per unit, a decimal string (fiat.RatePlaces decimals at
	// most): what every conversion reads.
	Rate string `json:"rate"`
	// Sources are the price sources whose median made it, or ["fixed"].
	Sources []string  `json:"sources"`
	At      time.Time `json:"at"`
	// Fixed is a rate the operator set by hand ([rates] fixed).
	Fixed bool `json:"fixed,omitempty"`
}

// Prices gives the ledger its rates. Rate answers ErrUnknownCurrency for a
// currency it does not offer and ErrRatesUnavailable when no source is
// fresh: never a stale rate.
type Prices interface {
	Rate(ctx context.Context, currency string) (Rate, error)
}

// FiatAmount is an amount a user gave in a currency.
type FiatAmount struct {
	// Amount is a positive decimal string, e.g. "12.50".
	Amount   string
	Currency string
}

// Fiat is what a record was asked for in a currency, and at what rate.
type Fiat struct {
	Amount   string    `json:"amount"`
	Currency string    `json:"currency"`
	Rate     string    `json:"rate"`
	At       time.Time `json:"at"`
	Fixed    bool      `json:"fixed,omitempty"`
}

// prices holds the registered Prices.
type prices struct {
	mu sync.RWMutex
	p  Prices
}

// SetPrices has the ledger read its rates from p.
func (s *Service) SetPrices(p Prices) {
	s.prices.mu.Lock()
	defer s.prices.mu.Unlock()
	s.prices.p = p
}

// Rate is the rate of currency now, from the registered Prices.
func (s *Service) Rate(ctx context.Context, currency string) (Rate, error) {
	code, ok := fiat.Currency(currency)
	if !ok {
		return Rate{}, fault.Invalidf("currency is a three-letter ISO 4217 code, e.g. EUR")
	}
	s.prices.mu.RLock()
	p := s.prices.p
	s.prices.mu.RUnlock()
	if p == nil {
		return Rate{}, ErrRatesUnavailable.Reasonf("No exchange rates: no plugin gives this instance its rates")
	}
	return p.Rate(ctx, code)
}

// convert prices amount in msat at the rate of now.
func (s *Service) convert(ctx context.Context, amount FiatAmount) (int64, *Fiat, error) {
	if _, err := fiat.ParseAmount(amount.Amount); err != nil {
		return 0, nil, fault.Invalidf("%s", err.Error())
	}
	r, err := s.Rate(ctx, amount.Currency)
	if err != nil {
		return 0, nil, err
	}
	msat, err := fiat.Msat(amount.Amount, r.Rate)
	if errors.Is(err, fiat.ErrAmount) {
		return 0, nil, ErrInvalidAmount.Reasonf("%s %s is too large an amount", amount.Amount, r.Currency)
	}
	if err != nil {
		return 0, nil, err
	}
	return msat, &Fiat{Amount: amount.Amount, Currency: r.Currency, Rate: r.Rate, At: r.At.UTC().Truncate(time.Microsecond), Fixed: r.Fixed}, nil
}

// fiatColumns keep a Fiat on a record (invoices and payments): all set or
// none.
type fiatColumns struct {
	FiatAmount   *string    `bun:"fiat_amount" json:"-"`
	FiatCurrency *string    `bun:"fiat_currency" json:"-"`
	FiatRate     *string    `bun:"fiat_rate" json:"-"`
	FiatAt       *time.Time `bun:"fiat_at" json:"-"`
	FiatFixed    *bool      `bun:"fiat_fixed" json:"-"`
}

// keep sets the columns to f; nil keeps none.
func (c *fiatColumns) keep(f *Fiat) {
	if f == nil {
		return
	}
	c.FiatAmount, c.FiatCurrency, c.FiatRate, c.FiatAt = &f.Amount, &f.Currency, &f.Rate, &f.At
	if f.Fixed {
		c.FiatFixed = &f.Fixed
	}
}

// fiat is the Fiat kept, or nil.
func (c *fiatColumns) fiat() *Fiat {
	if c.FiatAmount == nil || c.FiatCurrency == nil || c.FiatRate == nil || c.FiatAt == nil {
		return nil
	}
	return &Fiat{Amount: *c.FiatAmount, Currency: *c.FiatCurrency, Rate: *c.FiatRate, At: *c.FiatAt,
		Fixed: c.FiatFixed != nil && *c.FiatFixed}
}

// priceSpend converts the amount req asks for in a currency into
// req.AmountMsat, rounded down to a whole satoshi (an on-chain spend has
// no smaller unit, and many LNURL servers take none), and keeps what was
// asked on req for the record.
func (s *Service) priceSpend(ctx context.Context, req *PayRequest) error {
	if req.Fiat == nil {
		return nil
	}
	if req.AmountMsat != nil {
		return fault.Invalidf("give amount_msat or an amount in a currency, not both")
	}
	msat, f, err := s.convert(ctx, *req.Fiat)
	if err != nil {
		return err
	}
	if msat -= msat % 1000; msat <= 0 {
		return ErrInvalidAmount.Reasonf("%s %s is less than one satoshi", f.Amount, f.Currency)
	}
	req.AmountMsat, req.asked = &msat, f
	return nil
}
