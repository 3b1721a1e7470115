package ledger

import (
	"context"
	"fmt"
)

// NodeMayAccept reports whether the node may still take a payment for the
// invoice of paymentHash: not once the ledger settled it, whether inside
// the instance or at the node. An invoice the ledger does not know (made
// at the node by someone else) is the node's business: true.
func (s *Service) NodeMayAccept(ctx context.Context, paymentHash string) (bool, error) {
	var status []string
	err := s.db.R.NewSelect().Table("invoices").Column("status").
		Where("payment_hash = ?", paymentHash).Limit(1).Scan(ctx, &status)
	if err != nil {
		return false, fmt.Errorf("reading the status of invoice %s: %w", paymentHash, err)
	}
	return len(status) == 0 || status[0] != StatusSettled, nil
}
