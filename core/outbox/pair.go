package outbox

import (
	"context"
	"fmt"

	"github.com/hearthwallet/hearth/core/ledger"
)

// On PostgreSQL an internal payment paid through hearth_pay_own takes one
// event id, v, for its two events (migration
// 20261126000001_internal_event_pair): the payment records v+1, its
// payee's invoice.settled is v, and the invoice itself records none, so
// that its UPDATE writes no index entry. Such an invoice is found through
// its payment: a Settled Internal payment whose invoice (same payment
// hash) has no event id of its own. Invoices settled otherwise, and those
// internal payments settled before that migration, carry their own ids.
// The lookup of each payment's invoice is the reader's price for the
// writes saved; with Tagged it goes through invoices_tagged_idx, which
// holds the invoices plugins tagged alone.

// pairedInvoice is an invoice read through its internal payment, with the
// id of its event.
type pairedInvoice struct {
	ledger.Invoice `bun:",extend"`
	PairID         int64 `bun:"pair_id"`
}

// paidInternally returns the invoice.settled events, with ids in (after,
// head], of the invoices that internal payments settled with one event id
// for both (their payments' ids are in (after+1, head]), for f's wallet
// and tags; limit at most, in id order.
func (o *Outbox) paidInternally(ctx context.Context, after, head int64, f Filter, limit int) ([]Event, error) {
	var rows []pairedInvoice
	q := o.db.R.NewSelect().Model(&rows).
		ColumnExpr("invoice.*").ColumnExpr("p.event_id - 1 AS pair_id").
		Join("JOIN payments AS p ON p.payment_hash = invoice.payment_hash").
		Where("p.event_id > ?", after+1).Where("p.event_id <= ?", head).
		Where("p.ledger = ?", ledger.LedgerInternal).Where("p.status = ?", ledger.StatusSettled).
		Where("invoice.event_id IS NULL").Where("invoice.ledger = ?", ledger.LedgerInternal).
		OrderExpr("p.event_id").Limit(limit)
	if f.WalletID != "" {
		q = q.Where("invoice.wallet_id = ?", f.WalletID)
	}
	if f.tagged() {
		q = q.Where("invoice.tag IS NOT NULL")
	}
	if f.TagPlugin != "" {
		q = q.Where("invoice.tag_plugin = ?", f.TagPlugin)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("reading the events of invoices paid internally: %w", err)
	}
	o.counted(len(rows))
	evs := make([]Event, len(rows))
	for i := range rows {
		inv := &rows[i].Invoice
		inv.EventID = &rows[i].PairID
		evs[i] = invoiceEvent(inv)
	}
	return evs, nil
}
