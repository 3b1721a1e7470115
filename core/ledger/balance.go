package ledger

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// The conditional updates of a wallet's balance that a payment makes,
// each written once: a reserve taken from what is available, only if it
// is there; a reserve released; a reserve (or, after a release, what is
// available) spent at settlement. Each runs in the caller's transaction,
// beside the conditional update of the payment's status that makes it
// single-winner. Internal payments debit and credit in one statement of
// their own (internal.go's debitWallet, invoice.go's creditWallet).

// reserveFunds moves reserve from available to reserved, only if that
// much is available: false when it is not (nothing changed).
func reserveFunds(ctx context.Context, tx bun.Tx, walletID string, reserve int64, now time.Time) (bool, error) {
	return affected(tx.NewUpdate().Model((*walletRow)(nil)).
		Set("available_msat = available_msat - ?", reserve).
		Set("reserved_msat = reserved_msat + ?", reserve).
		Set("updated_at = ?", now).
		Where("id = ?", walletID).
		Where("available_msat >= ?", reserve).
		Exec(ctx))
}

// releaseReserve moves a failed payment's reserve back to available.
func releaseReserve(ctx context.Context, tx bun.Tx, walletID string, reserve int64, now time.Time) error {
	_, err := tx.NewUpdate().Model((*walletRow)(nil)).
		Set("reserved_msat = reserved_msat - ?", reserve).
		Set("available_msat = available_msat + ?", reserve).
		Set("updated_at = ?", now).
		Where("id = ?", walletID).
		Exec(ctx)
	return err
}

// spendSettled records a payment of amount at fee as sent: from its
// reserve while it is Pending (what the reserve held beyond them goes back
// to available), or from available when a failure already released the
// reserve (a payment the node settled after all).
func spendSettled(ctx context.Context, tx bun.Tx, p *Payment, fee int64, now time.Time) error {
	q := tx.NewUpdate().Model((*walletRow)(nil)).
		Set("sent_msat = sent_msat + ?", p.AmountMsat).
		Set("fees_paid_msat = fees_paid_msat + ?", fee).
		Set("updated_at = ?", now).
		Where("id = ?", p.WalletID)
	if p.Status == StatusPending {
		q = q.Set("reserved_msat = reserved_msat - ?", p.ReservedMsat).
			Set("available_msat = available_msat + ?", p.ReservedMsat-p.AmountMsat-fee)
	} else {
		q = q.Set("available_msat = available_msat - ?", p.AmountMsat+fee)
	}
	_, err := q.Exec(ctx)
	return err
}
