package ledger

import (
	"context"
	"fmt"
)

// NodeMayAccept reports whether the node may still take a payment for the
// invoice of paymentHash: not once the ledger settled it, whether inside
// the instance or at the node, nor once a hold invoice was cancelled or
// accepted inside the instance (hold.go). An invoice the ledger does not
// know (made at the node by someone else) is the node's business: true.
func (s *Service) NodeMayAccept(ctx context.Context, paymentHash string) (bool, error) {
	var rows []struct {
		Status string `bun:"status"`
		Ledger string `bun:"ledger"`
	}
	err := s.db.R.NewSelect().Table("invoices").Column("status", "ledger").
		Where("payment_hash = ?", paymentHash).Limit(1).Scan(ctx, &rows)
	if err != nil {
		return false, fmt.Errorf("reading the status of invoice %s: %w", paymentHash, err)
	}
	if len(rows) == 0 {
		return true, nil
	}
	switch r := rows[0]; {
	case r.Status == StatusSettled, r.Status == StatusCancelled:
		return false, nil
	case r.Status == StatusAccepted:
		return r.Ledger == LedgerLightning, nil
	}
	return true, nil
}
