package ledger

import "github.com/uptrace/bun"

// narrow applies the filter's payment hash and time span to a listing of
// invoices or payments (both tables have the columns).
func (f Filter) narrow(q *bun.SelectQuery) *bun.SelectQuery {
	if f.PaymentHash != "" {
		q = q.Where("payment_hash = ?", f.PaymentHash)
	}
	if f.From != nil {
		q = q.Where("created_at >= ?", f.From.UTC())
	}
	if f.Until != nil {
		q = q.Where("created_at <= ?", f.Until.UTC())
	}
	return q
}
