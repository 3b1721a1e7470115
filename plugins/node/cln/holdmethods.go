package cln

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The guard plugin's methods for Hearth's hold invoices (holdwire.go).
// What they decide is stored in the invoice's record before the HTLCs
// hear it, so an HTLC lightningd replays after a crash is answered the
// same way.

// settle resolves the HTLCs held for a hold invoice with the preimage
// (hearth-holdsettle). Settling one settled already answers as it is.
func (h *holder) settle(c *pluginCall) (any, error) {
	if !preimageOf(c.PaymentHash, c.Preimage) {
		return holdState{Refused: refusedPreimage}, nil
	}
	inv, err := h.lookup(c.PaymentHash)
	if inv == nil || err != nil {
		return holdState{Refused: refusedUnknown}, err
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	switch {
	case inv.rec.State == holdSettled:
		return inv.state(), nil
	case inv.rec.State == holdCancelled:
		return holdState{State: holdCancelled, Refused: refusedState}, nil
	case !inv.accepted:
		// Nothing held reaches the amount: lightningd may have failed
		// the HTLCs back while no plugin held them, and settling now
		// would credit a payment that never arrived.
		return holdState{State: holdOpen, Refused: refusedNotHeld}, nil
	}
	next := *inv.rec
	next.State, next.Preimage, next.ReceivedMsat = holdSettled, strings.ToLower(c.Preimage), inv.received()
	for _, p := range inv.parts {
		next.Parts = append(next.Parts, p.key)
	}
	if err := inv.store(&next); err != nil {
		return nil, err
	}
	for _, p := range inv.parts {
		p.verdict <- hookVerdict{Result: "resolve", PaymentKey: next.Preimage}
	}
	inv.parts = nil
	inv.change()
	return inv.state(), nil
}

// cancel fails back the HTLCs held for a hold invoice, and any that
// arrive later (hearth-holdcancel). Cancelling one cancelled already
// answers as it is.
func (h *holder) cancel(c *pluginCall) (any, error) {
	inv, err := h.lookup(c.PaymentHash)
	if inv == nil || err != nil {
		return holdState{Refused: refusedUnknown}, err
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	switch inv.rec.State {
	case holdCancelled:
		return inv.state(), nil
	case holdSettled:
		return holdState{State: holdSettled, Refused: refusedState}, nil
	}
	next := *inv.rec
	next.State = holdCancelled
	if err := inv.store(&next); err != nil {
		return nil, err
	}
	if inv.mpp != nil {
		inv.mpp.Stop()
		inv.mpp = nil
	}
	for _, p := range inv.parts {
		p.verdict <- failUnknown(p.amount, p.height)
	}
	inv.parts = nil
	inv.change()
	return inv.state(), nil
}

// wait answers a hold invoice's state once it is not c.Seen, or when
// c.Timeout seconds pass (hearth-holdwait).
func (h *holder) wait(c *pluginCall) (any, error) {
	inv, err := h.lookup(c.PaymentHash)
	if inv == nil || err != nil {
		return holdState{Refused: refusedUnknown}, err
	}
	limit := holdWaitDefault
	if c.Timeout > 0 {
		limit = min(time.Duration(c.Timeout)*time.Second, holdWaitMax)
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		inv.mu.Lock()
		st, changed := inv.state(), inv.changed
		inv.mu.Unlock()
		if st.State != c.Seen {
			return st, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return st, nil
		}
	}
}

// lookup is get for a method's payment hash.
func (h *holder) lookup(hash string) (*heldInvoice, error) {
	if h.node == nil {
		return nil, fmt.Errorf("hearth invoice guard: not initialised")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.get(ctx, strings.ToLower(hash))
}

// store writes next as inv's record, then keeps it. Under inv.mu.
func (inv *heldInvoice) store(next *holdRecord) error {
	raw, err := json.Marshal(next)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := inv.node.call(ctx, datastoreRequest{Key: holdKey(inv.hash), String: string(raw), Mode: "must-replace"}, nil); err != nil {
		return fmt.Errorf("storing hold invoice %s: %w", inv.hash, err)
	}
	inv.rec = next
	return nil
}
