package api

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// RecordValuer values the settled records the API shows in their
// wallet's currency, at the rate when they settled (ledger.Valuation):
// host.Registry, for its built-ins.
type RecordValuer interface {
	ValueRecords(ctx context.Context, invs []*ledger.Invoice, ps []*ledger.Payment) error
}

// value lets the plugins value the settled records among invs and ps. A
// value is a reading of the records, not the books: when it fails, the
// records show without one, and the failure is logged.
func (s *Server) value(ctx context.Context, invs []*ledger.Invoice, ps []*ledger.Payment) {
	v, ok := s.plugins.(RecordValuer)
	if !ok {
		return
	}
	if err := v.ValueRecords(ctx, invs, ps); err != nil {
		s.log.WarnContext(ctx, "valuing records in their currency", "err", err)
	}
}

// invoiceValued is the ledger's Invoice, valued.
func (s *Server) invoiceValued(ctx context.Context, owner, id string) (*ledger.Invoice, error) {
	inv, err := s.ledger.Invoice(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	s.value(ctx, []*ledger.Invoice{inv}, nil)
	return inv, nil
}

// paymentValued is the ledger's Payment, valued.
func (s *Server) paymentValued(ctx context.Context, owner, id string) (*ledger.Payment, error) {
	p, err := s.ledger.Payment(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	s.value(ctx, nil, []*ledger.Payment{p})
	return p, nil
}

// pointers are pointers to each of xs.
func pointers[T any](xs []T) []*T {
	out := make([]*T, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}
