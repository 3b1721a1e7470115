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
	invTypes, payStatus := f.tables()
	var lists [][]Event // each in id order, limit at most
	if len(invTypes) > 0 {
		var invs []ledger.Invoice
		if err := o.invoicePage(&invs, invTypes, after, head, f, limit).Scan(ctx); err != nil {
			return nil, after, fmt.Errorf("reading the events of invoices: %w", err)
		}
		o.counted(len(invs))
		lists = append(lists, eventsOf(invs, invoiceEvent))
		if slices.Contains(invTypes, event.InvoiceSettled) && o.db.Dialect == store.Postgres {
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
// into invs: those of the types invTypes, with ids in (after, head],
// limit at most. With tags it walks invoices_tagged_event_idx, which holds
// the invoices plugins tagged alone.
func (o *Outbox) invoicePage(invs *[]ledger.Invoice, invTypes []string, after, head int64, f Filter, limit int) *bun.SelectQuery {
	q := o.db.R.NewSelect().Model(invs)
	if len(invTypes) < len(invoiceTypes) {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, t := range invTypes {
				k := invoiceTypes[t]
				switch {
				case k.ledger == "":
					q = q.WhereOr("status = ?", k.status)
				case k.onchain:
					q = q.WhereOr("status = ? AND ledger = ?", k.status, k.ledger)
				default:
					q = q.WhereOr("status = ? AND ledger <> ?", k.status, k.ledger)
				}
			}
			return q
		})
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

// invoiceKind is the invoices an invoice event type is of: their status,
// and the ledger they are (onchain) or are not of, when it matters.
type invoiceKind struct {
	status, ledger string
	onchain        bool
}

// invoiceTypes are the event types of invoices, each of its invoices.
var invoiceTypes = map[string]invoiceKind{
	event.InvoiceSettled:   {status: ledger.StatusSettled, ledger: ledger.LedgerOnchain},
	event.OnchainDeposit:   {status: ledger.StatusSettled, ledger: ledger.LedgerOnchain, onchain: true},
	event.InvoiceAccepted:  {status: ledger.StatusAccepted},
	event.InvoiceCancelled: {status: ledger.StatusCancelled},
}

// tables says which records f reads: the invoices of which event types,
// and payments of which statuses (payment.settled, payment.failed).
func (f Filter) tables() (invoices []string, payments []string) {
	if f.Types == nil {
		return []string{event.InvoiceSettled, event.OnchainDeposit, event.InvoiceAccepted, event.InvoiceCancelled},
			[]string{ledger.StatusSettled, ledger.StatusFailed}
	}
	for _, t := range []string{event.InvoiceSettled, event.OnchainDeposit, event.InvoiceAccepted, event.InvoiceCancelled} {
		if slices.Contains(f.Types, t) {
			invoices = append(invoices, t)
		}
	}
	if slices.Contains(f.Types, event.PaymentSettled) {
		payments = append(payments, ledger.StatusSettled)
	}
	if slices.Contains(f.Types, event.PaymentFailed) {
		payments = append(payments, ledger.StatusFailed)
	}
	return invoices, payments
}

// invoiceEvent is the event of inv's status: invoice.settled (or
// onchain.deposit for a deposit's), invoice.accepted or invoice.cancelled.
func invoiceEvent(inv *ledger.Invoice) Event {
	at := inv.CreatedAt
	if inv.UpdatedAt != nil {
		at = *inv.UpdatedAt
	}
	at = at.UTC()
	typ := event.InvoiceSettled
	switch {
	case inv.Status == ledger.StatusAccepted:
		typ = event.InvoiceAccepted
	case inv.Status == ledger.StatusCancelled:
		typ = event.InvoiceCancelled
	case inv.Ledger == ledger.LedgerOnchain:
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
