// Package event carries what happened in the ledger to whoever listens
// (plugins, receipts, webhooks), after the transaction that did it has
// committed. Publishing never blocks a payment: each subscriber has a
// bounded queue, and an event that does not fit is dropped and logged.
package event

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// The event types.
const (
	InvoiceSettled = "invoice.settled"
	// InvoiceAccepted is a hold invoice paid and held until its owner
	// settles or cancels it; InvoiceCancelled, one cancelled.
	InvoiceAccepted  = "invoice.accepted"
	InvoiceCancelled = "invoice.cancelled"
	PaymentSettled   = "payment.settled"
	PaymentFailed    = "payment.failed"
	// OnchainDeposit is an on-chain deposit credited: the settled Onchain
	// invoice of an output paid to a deposit address.
	OnchainDeposit = "onchain.deposit"
)

// Event is one thing that happened.
type Event struct {
	Type     string    `json:"type"`
	WalletID string    `json:"wallet_id"`
	ID       string    `json:"id"` // the invoice or payment id
	At       time.Time `json:"at"`
	// Data is the invoice or payment record.
	Data any `json:"data"`
}

// Bus fans events out to subscribers.
type Bus struct {
	mu    sync.RWMutex
	subs  []chan Event
	wakes []*func()
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{} }

// Subscribe returns a channel that receives every event published from now
// on, holding up to size events; it is closed when ctx ends.
func (b *Bus) Subscribe(ctx context.Context, size int) <-chan Event {
	ch := make(chan Event, size)
	b.mu.Lock()
	b.subs = append(b.subs, ch)
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, s := range b.subs {
			if s == ch {
				b.subs = append(b.subs[:i], b.subs[i+1:]...)
				close(ch)
				return
			}
		}
	})
	return ch
}

// OnPublish calls wake, in the publisher's goroutine, after every event
// published from now on until ctx ends. wake must return at once (a
// non-blocking send): it costs the publisher nothing more, where a
// subscriber's channel wakes a goroutine for every event.
func (b *Bus) OnPublish(ctx context.Context, wake func()) {
	w := &wake
	b.mu.Lock()
	b.wakes = append(b.wakes, w)
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, x := range b.wakes {
			if x == w {
				b.wakes = append(b.wakes[:i], b.wakes[i+1:]...)
				return
			}
		}
	})
}

// Publish hands e to every subscriber without waiting.
func (b *Bus) Publish(ctx context.Context, e Event) {
	if b == nil {
		return
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, ch := range b.subs {
		select {
		case ch <- e:
		default:
			slog.WarnContext(ctx, "event dropped: subscriber queue full", "type", e.Type, "id", e.ID)
		}
	}
	for _, w := range b.wakes {
		(*w)()
	}
}
