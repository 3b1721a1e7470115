package cln

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// The streams: lightningd has no subscription of its own over JSON-RPC,
// but every change of an invoice or a payment part moves the "updated"
// index of its subsystem, and wait returns when it does. A stream fixes
// the index when it starts (before the ledger reconciles, so nothing in
// between is missed), then waits for the next value and lists what
// changed since.

// follow streams, on a channel it closes when it stops, what read sends
// for every range of the subsystem's updated index that moved, from the
// value the index has now, until ctx ends or a call fails. It returns once
// the start is fixed.
func follow[T any](ctx context.Context, n *Node, subsystem string, read func(ctx context.Context, start uint64, send func(T) error) error) (<-chan T, error) {
	cur, err := n.updatedIndex(ctx, subsystem)
	if err != nil {
		return nil, err
	}
	return followFrom(ctx, n, subsystem, cur, read)
}

// updatedIndex is the subsystem's updated index now.
func (n *Node) updatedIndex(ctx context.Context, subsystem string) (uint64, error) {
	var w waitResponse
	if err := n.call(ctx, waitRequest{Subsystem: subsystem, IndexName: "updated", NextValue: 0}, &w); err != nil {
		return 0, err
	}
	return w.Updated, nil
}

// followFrom is follow from the index cur: when the index moved past it
// already, the first wait returns at once and what moved is read.
func followFrom[T any](ctx context.Context, n *Node, subsystem string, cur uint64, read func(ctx context.Context, start uint64, send func(T) error) error) (<-chan T, error) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan T)
	send := func(v T) error {
		select {
		case ch <- v:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	go func() {
		defer close(ch)
		defer cancel()
		for {
			var next waitResponse
			if err := n.call(ctx, waitRequest{Subsystem: subsystem, IndexName: "updated", NextValue: cur + 1}, &next); err != nil {
				return
			}
			if err := read(ctx, cur+1, send); err != nil {
				return
			}
			cur = max(next.Updated, cur+1)
		}
	}()
	return ch, nil
}

// SubscribeInvoices delivers the node's paid invoices until ctx ends or
// the node goes away; then the channel is closed and the ledger
// resubscribes.
func (n *Node) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	cur, err := n.InvoicePosition(ctx)
	if err != nil {
		return nil, err
	}
	return n.SubscribeInvoicesAfter(ctx, cur)
}

// InvoicePosition is the invoices' updated index now: a settlement's
// Position is its invoice's updated index.
func (n *Node) InvoicePosition(ctx context.Context) (uint64, error) {
	return n.updatedIndex(ctx, "invoices")
}

// SubscribeInvoicesAfter is SubscribeInvoices from after position: the
// invoices paid since are delivered first.
func (n *Node) SubscribeInvoicesAfter(ctx context.Context, position uint64) (<-chan ledger.InvoiceSettlement, error) {
	return followFrom(ctx, n, "invoices", position, func(ctx context.Context, start uint64, send func(ledger.InvoiceSettlement) error) error {
		var res listinvoicesResponse
		if err := n.call(ctx, listinvoicesRequest{Index: "updated", Start: start}, &res); err != nil {
			return err
		}
		for _, inv := range res.Invoices {
			if inv.Status != "paid" {
				continue
			}
			st := settlement(inv)
			if err := n.withKeysend(ctx, inv, &st); err != nil {
				return err
			}
			if err := send(st); err != nil {
				return err
			}
		}
		return nil
	})
}

// SubscribePayments delivers the final state of the node's outgoing
// payments (each looked up whole with listpays when one of its parts
// finished) until ctx ends or the node goes away; then it closes the
// channel.
func (n *Node) SubscribePayments(ctx context.Context) (<-chan ledger.PaymentUpdate, error) {
	return follow(ctx, n, "sendpays", func(ctx context.Context, start uint64, send func(ledger.PaymentUpdate) error) error {
		var res listsendpaysResponse
		if err := n.call(ctx, listsendpaysRequest{Index: "updated", Start: start}, &res); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, p := range res.Payments {
			if p.Status == "pending" || seen[p.PaymentHash] {
				continue
			}
			seen[p.PaymentHash] = true
			r, err := n.LookupPayment(ctx, p.PaymentHash)
			if err != nil {
				return err
			}
			if r.State != ledger.PaymentSucceeded && r.State != ledger.PaymentFailedState {
				continue
			}
			if err := send(ledger.PaymentUpdate{PaymentHash: p.PaymentHash, Result: *r}); err != nil {
				return err
			}
		}
		return nil
	})
}
