package host

import (
	"context"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
)

// Counter counts what the ledger lists: a ledger that has it answers
// Caller.CountInvoices and CountPayments.
type Counter interface {
	CountInvoices(ctx context.Context, f ledger.Filter) (int, error)
	CountPayments(ctx context.Context, f ledger.Filter) (int, error)
}

// CountInvoices is how many of the wallet's invoices f lists over every
// page (read:transaction): a total beside a page of Invoices.
func (c *Caller) CountInvoices(ctx context.Context, f ledger.Filter) (int, error) {
	counter, err := c.counter(ctx, "count_invoices")
	if err != nil {
		return 0, err
	}
	f.WalletID = c.walletID()
	return counter.CountInvoices(ctx, f)
}

// CountPayments is how many of the wallet's payments f lists over every
// page (read:transaction).
func (c *Caller) CountPayments(ctx context.Context, f ledger.Filter) (int, error) {
	counter, err := c.counter(ctx, "count_payments")
	if err != nil {
		return 0, err
	}
	f.WalletID = c.walletID()
	return counter.CountPayments(ctx, f)
}

func (c *Caller) counter(ctx context.Context, what string) (Counter, error) {
	if err := c.allow(ctx, need{scope: auth.ReadTransaction, wallet: true, what: what}); err != nil {
		return nil, err
	}
	counter, ok := c.api.ledger.(Counter)
	if !ok {
		return nil, callErrorf("unavailable", "%s: the ledger counts nothing", what)
	}
	return counter, nil
}
