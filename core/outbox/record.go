package outbox

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
)

// Read returns up to limit events of f after id after and up to the head,
// oldest first, and the id it read up to (the last event's, or the head's
// when fewer than limit events matched). The invoices and the payments
// that took event ids are read apart, each by its index of event ids, and
// so are, on PostgreSQL, the invoices that internal payments settled,
// through their payments (paidInternally), and the events plugins added
// (pluginevents.go); the lists are merged.
func (o *Outbox) Read(ctx context.Context, after int64, f Filter, limit int) ([]Event, int64, error) {
	head, _ := o.Head()
	if after >= head || limit <= 0 {
		return nil, after, nil
	}
	invLedger, payStatus := f.tables()
	var lists [][]Event // each in id order, limit at most
	if invLedger != noInvoices {
		var invs []ledger.Invoice
		if err := o.invoicePage(&invs, invLedger, after, head, f, limit).Scan(ctx); err != nil {
			return nil, after, fmt.Errorf("reading the events of invoices: %w", err)
		}
		o.counted(len(invs))
		lists = append(lists, eventsOf(invs, invoiceEvent))
		if invLedger != onchainOnly && o.db.Dialect == store.Postgres {
			evs, err := o.paidInternally(ctx, after, head, f, limit)
			if err != nil {
				return nil, after, err
			}
			lists = append(lists, evs)
		}
	}
	if len(payStatus) > 0 {
		var pays []ledger.Payment
		q := o.db.R.NewSelect().Model(&pays)
		if len(payStatus) == 1 {
			q = q.Where("status = ?", payStatus[0])
		}
		if err := o.page(q, after, head, f.WalletID, limit).Scan(ctx); err != nil {
			return nil, after, fmt.Errorf("reading the events of payments: %w", err)
		}
		o.counted(len(pays))
		lists = append(lists, eventsOf(pays, paymentEvent))
	}
	evs, read, err := o.readPluginEvents(ctx, after, head, f, limit)
	if err != nil {
		return nil, after, err
	}
	if read {
		lists = append(lists, evs)
	}
	out, reached := merge(lists, head, limit)
	return out, reached, nil
}

// merge merges lists, each in id order and limit long at most, into the
// first limit events up to head; it returns them and the id it read up to.
// A full list may stop short of events of the others: the merge goes no
// further than the lowest last id of a full list.
func merge(lists [][]Event, head int64, limit int) ([]Event, int64) {
	cut := head
	total := 0
	for _, l := range lists {
		if len(l) == limit {
			cut = min(cut, l[limit-1].ID)
		}
		total += len(l)
	}
	out := make([]Event, 0, min(limit, total))
	next := make([]int, len(lists))
	for len(out) < limit {
		k := -1
		for i, l := range lists {
			if next[i] < len(l) && l[next[i]].ID <= cut && (k < 0 || l[next[i]].ID < lists[k][next[k]].ID) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		out = append(out, lists[k][next[k]])
		next[k]++
	}
	if len(out) == limit {
		return out, out[limit-1].ID
	}
	return out, cut
}

// invoicePage is the query of the invoices' events of f that Read reads
// into invs: those of the ledgers invLedger says, with ids in (after,
// head], limit at most. With tags it walks invoices_tagged_event_idx,
// which holds the invoices plugins tagged alone.
func (o *Outbox) invoicePage(invs *[]ledger.Invoice, invLedger int, after, head int64, f Filter, limit int) *bun.SelectQuery {
	q := o.db.R.NewSelect().Model(invs)
	switch invLedger {
	case onchainOnly:
		q = q.Where("ledger = ?", ledger.LedgerOnchain)
	case notOnchain:
		q = q.Where("ledger <> ?", ledger.LedgerOnchain)
	}
	if f.tagged() {
		q = q.Where("tag IS NOT NULL")
	}
	if f.TagPlugin != "" {
		q = q.Where("tag_plugin = ?", f.TagPlugin)
	}
	return o.page(q, after, head, f.WalletID, limit)
}

// eventsOf returns the event of each record.
func eventsOf[R any](records []R, event func(*R) Event) []Event {
	evs := make([]Event, len(records))
	for i := range records {
		evs[i] = event(&records[i])
	}
	return evs
}

// page restricts q to the records with event ids in (after, head] of
// walletID ("" for all), the first limit of them.
func (o *Outbox) page(q *bun.SelectQuery, after, head int64, walletID string, limit int) *bun.SelectQuery {
	q = q.Where("event_id > ?", after).Where("event_id <= ?", head).OrderExpr("event_id").Limit(limit)
	if walletID != "" {
		q = q.Where("wallet_id = ?", walletID)
	}
	return q
}

// Which invoices a filter reads: none, all, only deposits' (Onchain:
// onchain.deposit) or all but deposits' (invoice.settled).
const (
	noInvoices = iota
	allInvoices
	onchainOnly
	notOnchain
)

// tables says which records f reads: which invoices (invoice.settled,
// onchain.deposit), and payments of which statuses (payment.settled,
// payment.failed).
func (f Filter) tables() (invoices int, payments []string) {
	if f.Types == nil {
		return allInvoices, []string{ledger.StatusSettled, ledger.StatusFailed}
	}
	settled, deposits := slices.Contains(f.Types, event.InvoiceSettled), slices.Contains(f.Types, event.OnchainDeposit)
	switch {
	case settled && deposits:
		invoices = allInvoices
	case settled:
		invoices = notOnchain
	case deposits:
		invoices = onchainOnly
	}
	if slices.Contains(f.Types, event.PaymentSettled) {
		payments = append(payments, ledger.StatusSettled)
	}
	if slices.Contains(f.Types, event.PaymentFailed) {
		payments = append(payments, ledger.StatusFailed)
	}
	return invoices, payments
}

// invoiceEvent is the invoice.settled event of inv, or onchain.deposit
// when inv is a deposit's.
func invoiceEvent(inv *ledger.Invoice) Event {
	at := inv.CreatedAt
	if inv.UpdatedAt != nil {
		at = *inv.UpdatedAt
	}
	at = at.UTC()
	typ := event.InvoiceSettled
	if inv.Ledger == ledger.LedgerOnchain {
		typ = event.OnchainDeposit
	}
	return Event{ID: *inv.EventID, Type: typ, CreatedAt: at, WalletID: inv.WalletID,
		SubjectID: inv.ID, Data: ledger.InvoiceRecord(inv, at)}
}

// paymentEvent is the payment.settled or payment.failed event of p.
func paymentEvent(p *ledger.Payment) Event {
	at := p.CreatedAt
	switch {
	case p.UpdatedAt != nil:
		at = *p.UpdatedAt
	case p.PaymentTime != nil:
		at = *p.PaymentTime
	}
	typ := event.PaymentSettled
	if p.Status == ledger.StatusFailed {
		typ = event.PaymentFailed
	}
	return Event{ID: *p.EventID, Type: typ, CreatedAt: at.UTC(), WalletID: p.WalletID,
		SubjectID: p.ID, Data: ledger.PaymentRecord(p)}
}
