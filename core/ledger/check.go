package ledger

import (
	"context"
	"fmt"
)

// Breach is a wallet whose balances disagree with each other or with its
// invoices and payments.
type Breach struct {
	WalletID string `bun:"id" json:"wallet_id"`
	Reason   string `bun:"-" json:"reason"`

	Available int64 `bun:"available_msat" json:"available_msat"`
	Reserved  int64 `bun:"reserved_msat" json:"reserved_msat"`
	Received  int64 `bun:"received_msat" json:"received_msat"`
	Sent      int64 `bun:"sent_msat" json:"sent_msat"`
	Fees      int64 `bun:"fees_paid_msat" json:"fees_paid_msat"`

	InvoicesReceived int64 `bun:"inv_received" json:"invoices_received_msat"`
	PaymentsSent     int64 `bun:"pay_sent" json:"payments_sent_msat"`
	PaymentsFees     int64 `bun:"pay_fees" json:"payments_fees_msat"`
	PaymentsReserved int64 `bun:"pay_reserved" json:"payments_reserved_msat"`
}

// Check verifies, for every wallet, that available + reserved = received -
// sent - fees, that no balance is negative, and that the totals equal the
// sums of its settled invoices, settled payments and pending reserves.
func (s *Service) Check(ctx context.Context) ([]Breach, error) {
	var rows []Breach
	err := s.db.R.NewRaw(`
SELECT w.id, w.available_msat, w.reserved_msat, w.received_msat, w.sent_msat, w.fees_paid_msat,
  COALESCE((SELECT SUM(i.amount_received_msat) FROM invoices i WHERE i.wallet_id = w.id AND i.status = 'Settled'), 0) AS inv_received,
  COALESCE((SELECT SUM(p.amount_msat) FROM payments p WHERE p.wallet_id = w.id AND p.status = 'Settled'), 0) AS pay_sent,
  COALESCE((SELECT SUM(p.fee_msat) FROM payments p WHERE p.wallet_id = w.id AND p.status = 'Settled'), 0) AS pay_fees,
  COALESCE((SELECT SUM(p.reserved_msat) FROM payments p WHERE p.wallet_id = w.id AND p.status = 'Pending'), 0) AS pay_reserved
FROM wallets w`).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("checking ledger: %w", err)
	}
	var out []Breach
	for _, r := range rows {
		switch {
		case r.Available+r.Reserved != r.Received-r.Sent-r.Fees:
			r.Reason = "available + reserved != received - sent - fees"
		case r.Available < 0 || r.Reserved < 0:
			r.Reason = "negative balance"
		case r.Received != r.InvoicesReceived:
			r.Reason = "received differs from settled invoices"
		case r.Sent != r.PaymentsSent || r.Fees != r.PaymentsFees:
			r.Reason = "sent or fees differ from settled payments"
		case r.Reserved != r.PaymentsReserved:
			r.Reason = "reserved differs from pending payments"
		default:
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
