package ledger

import (
	"sync"
	"time"
)

// recentInvoicesMax is how many invoices a ledger remembers: some 1.3 KiB
// each with a description and a tag, 42 MiB at most (measured). An instance's invoices
// paid inside it are mostly paid soon after they are made (a zap, a
// Lightning Address between two of its users, a transfer between wallets).
const recentInvoicesMax = 32_768

// recentInvoices remembers the invoices this process issued last, by their
// text, so that paying one of them from another wallet of the instance
// needs no read of the database before the payment's transaction. On
// SQLite that read was a fifth of an internal payment's CPU: each commit
// makes every reader's page cache start over, so it read its pages anew
// (docs/performance.md, 2026-11-28).
//
// What it remembers is a hint, never the truth: an invoice's text, amount,
// wallet and expiry never change once it is stored, but its status does,
// in another process too (a replica, the node's settlement). The
// payment's transaction settles the invoice only if it is still Pending
// and unexpired; a payment that finds it otherwise forgets it here and
// asks the database (payResolved).
type recentInvoices struct {
	mu     sync.Mutex
	byText map[string]*Invoice
	// ring holds the remembered texts in the order they came, the oldest
	// at next, which the next one replaces.
	ring []string
	next int
}

func newRecentInvoices(max int) *recentInvoices {
	return &recentInvoices{byText: make(map[string]*Invoice), ring: make([]string, max)}
}

// remember keeps a copy of inv, as it was stored, forgetting the oldest
// invoice once it holds max.
func (r *recentInvoices) remember(inv *Invoice) {
	c := *inv
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.ring[r.next]; old != "" {
		delete(r.byText, old)
	}
	r.ring[r.next] = c.Bolt11
	r.byText[c.Bolt11] = &c
	r.next = (r.next + 1) % len(r.ring)
}

// recall returns a copy of the invoice remembered by its text bolt11 (as
// it was stored: Pending), unless it has expired at now; nil otherwise.
func (r *recentInvoices) recall(bolt11 string, now time.Time) *Invoice {
	r.mu.Lock()
	defer r.mu.Unlock()
	inv, ok := r.byText[bolt11]
	if !ok {
		return nil
	}
	if !now.Before(inv.ExpiresAt) {
		delete(r.byText, bolt11)
		return nil
	}
	c := *inv
	return &c
}

// forget drops the invoice of text bolt11, once it is paid or found no
// longer Pending. Its place in the ring stays until the ring comes round.
func (r *recentInvoices) forget(bolt11 string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byText, bolt11)
}
