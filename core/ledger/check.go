package ledger

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
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
// sums of its settled invoices, settled payments and pending reserves. It
// reads every invoice and payment, in one snapshot, and writes nothing
// (CheckFull also rebuilds the checkpoint; CheckIncremental reads what
// settled after it).
func (s *Service) Check(ctx context.Context) ([]Breach, error) {
	var out []Breach
	err := s.db.ReadSnapshot(ctx, func(ctx context.Context, tx bun.Tx) error {
		books, err := readBooks(ctx, tx)
		if err != nil {
			return err
		}
		totals, err := readAllSums(ctx, tx)
		if err != nil {
			return err
		}
		for i := range books {
			b := &books[i]
			t := totals[b.WalletID]
			b.InvoicesReceived, b.PaymentsSent, b.PaymentsFees = t.Received, t.Sent, t.Fees
		}
		out = judge(books)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checking ledger: %w", err)
	}
	return out, nil
}
