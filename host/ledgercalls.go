package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// The ledger's powers that only a capability grants: joining the payment
// path (ledger:resolver) and crediting what the chain shows
// (ledger:deposit). A built-in reaches them here, checked like every
// call, never through the ledger itself.

// ChainLedger is what ledger:deposit reaches of the ledger.
type ChainLedger interface {
	Deposit(ctx context.Context, walletID string, out ledger.BitcoinOutput, credit bool) (*ledger.Deposit, error)
	PendingDeposits(ctx context.Context) ([]ledger.Invoice, error)
	ReconcileSpends(ctx context.Context, listed []ledger.ChainTx, lookup bool) error
}

// Resolvers is what ledger:resolver reaches of the ledger.
type Resolvers interface {
	AddResolver(r ledger.Resolver)
}

// AddResolver has the ledger ask r about payment inputs that are no BOLT11
// invoice (ledger:resolver).
func (c *Caller) AddResolver(ctx context.Context, r ledger.Resolver) error {
	if err := c.allowCap(ctx, LedgerResolver, "add_resolver"); err != nil {
		return err
	}
	res, ok := c.api.ledger.(Resolvers)
	if !ok {
		return callErrorf("unavailable", "the ledger takes no resolvers")
	}
	res.AddResolver(r)
	return nil
}

// Prices is what ledger:prices and rates:read reach of the ledger.
type Prices interface {
	SetPrices(p ledger.Prices)
	Rate(ctx context.Context, currency string) (ledger.Rate, error)
}

// SetPrices has the ledger read its exchange rates from p
// (ledger:prices).
func (c *Caller) SetPrices(ctx context.Context, p ledger.Prices) error {
	l, err := c.prices(ctx, LedgerPrices, "set_prices")
	if err != nil {
		return err
	}
	l.SetPrices(p)
	return nil
}

// ExchangeRate is the exchange rate of currency now: sat per unit, from whatever
// gives the ledger its rates (rates:read). Its faults are the ledger's:
// rates_unavailable when no rate is fresh, unknown_currency.
func (c *Caller) ExchangeRate(ctx context.Context, currency string) (ledger.Rate, error) {
	l, err := c.prices(ctx, RatesRead, "rate")
	if err != nil {
		return ledger.Rate{}, err
	}
	return l.Rate(ctx, currency)
}

func (c *Caller) prices(ctx context.Context, capability, what string) (Prices, error) {
	if err := c.allowCap(ctx, capability, what); err != nil {
		return nil, err
	}
	l, ok := c.api.ledger.(Prices)
	if !ok {
		return nil, callErrorf("unavailable", "the ledger has no exchange rates")
	}
	return l, nil
}

// Deposit records an output paid to a deposit address of walletID, once
// per outpoint, and credits it once when credit is set (ledger:deposit).
func (c *Caller) Deposit(ctx context.Context, walletID string, out ledger.BitcoinOutput, credit bool) (*ledger.Deposit, error) {
	chain, err := c.chainLedger(ctx, "deposit")
	if err != nil {
		return nil, err
	}
	return chain.Deposit(ctx, walletID, out, credit)
}

// PendingDeposits lists the deposits not credited yet (ledger:deposit).
func (c *Caller) PendingDeposits(ctx context.Context) ([]ledger.Invoice, error) {
	chain, err := c.chainLedger(ctx, "pending_deposits")
	if err != nil {
		return nil, err
	}
	return chain.PendingDeposits(ctx)
}

// ReconcileSpends settles the on-chain payments confirmed in listed (or at
// the node when lookup is set), and fails those the node never got
// (ledger:deposit).
func (c *Caller) ReconcileSpends(ctx context.Context, listed []ledger.ChainTx, lookup bool) error {
	chain, err := c.chainLedger(ctx, "reconcile_spends")
	if err != nil {
		return err
	}
	return chain.ReconcileSpends(ctx, listed, lookup)
}

func (c *Caller) chainLedger(ctx context.Context, what string) (ChainLedger, error) {
	if err := c.allowCap(ctx, LedgerDeposit, what); err != nil {
		return nil, err
	}
	chain, ok := c.api.ledger.(ChainLedger)
	if !ok {
		return nil, callErrorf("unavailable", "the ledger keeps no on-chain deposits")
	}
	return chain, nil
}

// allowCap checks that the plugin is enabled and granted capability name.
func (c *Caller) allowCap(ctx context.Context, name, what string) error {
	if err := c.allow(ctx, need{what: what}); err != nil {
		return err
	}
	if !c.p.Grant().Has(name) {
		return c.api.refuse(ctx, c.p, what, "missing capability "+name)
	}
	return nil
}
