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

// follow calls changed with every range of the subsystem's updated index
// that moved, from the value it has now, until ctx ends or a call fails.
// It returns once the start is fixed; done is closed when it stops.
func (n *Node) follow(ctx context.Context, subsystem string, changed func(start uint64) error) (done <-chan struct{}, err error) {
	var w waitResponse
	if err := n.call(ctx, waitRequest{Subsystem: subsystem, IndexName: "updated", NextValue: 0}, &w); err != nil {
		return nil, err
	}
	cur := w.Updated
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			var next waitResponse
			if err := n.call(ctx, waitRequest{Subsystem: subsystem, IndexName: "updated", NextValue: cur + 1}, &next); err != nil {
				return
			}
			if err := changed(cur + 1); err != nil {
				return
			}
			cur = max(next.Updated, cur+1)
		}
	}()
	return stopped, nil
}

// SubscribeInvoices delivers the node's paid invoices until ctx ends or
// the node goes away; then the channel is closed and the ledger
// resubscribes.
func (n *Node) SubscribeInvoices(ctx context.Context) (<-chan ledger.InvoiceSettlement, error) {
	ch := make(chan ledger.InvoiceSettlement)
	ctx, cancel := context.WithCancel(ctx)
	done, err := n.follow(ctx, "invoices", func(start uint64) error {
		var res listinvoicesResponse
		if err := n.call(ctx, listinvoicesRequest{Index: "updated", Start: start}, &res); err != nil {
			return err
		}
		for _, inv := range res.Invoices {
			if inv.Status != "paid" {
				continue
			}
			select {
			case ch <- settlement(inv):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		<-done
		cancel()
		close(ch)
	}()
	return ch, nil
}

// SubscribePayments delivers the final state of the node's outgoing
// payments (each looked up whole with listpays when one of its parts
// finished) until ctx ends or the node goes away; then it closes the
// channel.
func (n *Node) SubscribePayments(ctx context.Context) (<-chan ledger.PaymentUpdate, error) {
	ch := make(chan ledger.PaymentUpdate)
	ctx, cancel := context.WithCancel(ctx)
	done, err := n.follow(ctx, "sendpays", func(start uint64) error {
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
			select {
			case ch <- ledger.PaymentUpdate{PaymentHash: p.PaymentHash, Result: *r}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		<-done
		cancel()
		close(ch)
	}()
	return ch, nil
}
