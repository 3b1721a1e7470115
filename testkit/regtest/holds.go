package regtest

import (
	"context"
	"fmt"
	"sync"
)

// Holds are the hold invoices an lnd of the network made, by payment
// hash: the peer of a backend contract's Network that holds a payment
// until the test settles or cancels it. Its methods are the Network's
// (testkit/nodecontract), so a Network embeds it.
type Holds struct {
	node *Node
	mu   sync.Mutex
	byID map[string]*HoldInvoice
}

// NewHolds returns the hold invoices of node.
func NewHolds(node *Node) *Holds { return &Holds{node: node, byID: map[string]*HoldInvoice{}} }

// HoldInvoice makes a hold invoice of msat and keeps it.
func (h *Holds) HoldInvoice(ctx context.Context, msat int64) (string, string, error) {
	inv, err := h.node.AddHoldInvoice(ctx, msat)
	if err != nil {
		return "", "", err
	}
	h.mu.Lock()
	h.byID[inv.Hash] = inv
	h.mu.Unlock()
	return inv.Bolt11, inv.Hash, nil
}

// WaitHeld returns once the node holds a payment of hash.
func (h *Holds) WaitHeld(ctx context.Context, hash string) error {
	return h.node.WaitInvoiceState(ctx, hash, "ACCEPTED")
}

// SettleHold settles the held payment of hash.
func (h *Holds) SettleHold(ctx context.Context, hash string) error {
	h.mu.Lock()
	inv := h.byID[hash]
	h.mu.Unlock()
	if inv == nil {
		return fmt.Errorf("no hold invoice %s", hash)
	}
	return h.node.SettleHoldInvoice(ctx, inv)
}

// CancelHold cancels the held payment of hash.
func (h *Holds) CancelHold(ctx context.Context, hash string) error {
	return h.node.CancelInvoice(ctx, hash)
}
