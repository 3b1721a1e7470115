package ledger

import (
	"context"
	"fmt"
)

// CountInvoices is how many invoices f's listing holds over every page.
func (s *Service) CountInvoices(ctx context.Context, f Filter) (int, error) {
	q, err := f.invoices(s.db.R.NewSelect().Model((*Invoice)(nil)), s.timestamp())
	if err != nil {
		return 0, err
	}
	n, err := q.Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("counting invoices: %w", err)
	}
	return n, nil
}

// CountPayments is how many payments f's listing holds over every page.
func (s *Service) CountPayments(ctx context.Context, f Filter) (int, error) {
	q, err := f.payments(s.db.R.NewSelect().Model((*Payment)(nil)))
	if err != nil {
		return 0, err
	}
	n, err := q.Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("counting payments: %w", err)
	}
	return n, nil
}
