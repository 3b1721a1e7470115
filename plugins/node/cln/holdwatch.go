package cln

import (
	"context"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Following a hold invoice: lightningd's invoice stream knows nothing of
// them (it keeps no invoice for their hashes), so the ledger watches each
// through the plugin's hearth-holdwait (ledger.HoldWatcher).

// holdWaitSeconds is how long one hearth-holdwait call waits.
const holdWaitSeconds = 60

// WatchHold delivers the hold invoice of paymentHash's changes — held,
// settled, cancelled — until it is settled or cancelled, ctx ends or a
// call fails; then it closes the channel (the ledger's sweep watches it
// again).
func (n *Node) WatchHold(ctx context.Context, paymentHash string) (<-chan ledger.InvoiceSettlement, error) {
	first, err := n.holdState(ctx, holdWaitRequest{PaymentHash: paymentHash})
	if err != nil {
		return nil, err
	}
	if first.Refused != "" {
		return nil, ledger.ErrUnknownInvoice
	}
	ch := make(chan ledger.InvoiceSettlement)
	go func() {
		defer close(ch)
		st := first
		for {
			if st.State != holdOpen {
				select {
				case ch <- holdSettlement(paymentHash, st):
				case <-ctx.Done():
					return
				}
			}
			if st.State == holdSettled || st.State == holdCancelled {
				return
			}
			next, err := n.holdState(ctx, holdWaitRequest{PaymentHash: paymentHash, Seen: st.State, Timeout: holdWaitSeconds})
			if err != nil || next.Refused != "" {
				return
			}
			for next.State == st.State && next.HeldUntil == st.HeldUntil {
				// The wait timed out with nothing new.
				if next, err = n.holdState(ctx, holdWaitRequest{PaymentHash: paymentHash, Seen: st.State, Timeout: holdWaitSeconds}); err != nil || next.Refused != "" {
					return
				}
			}
			st = next
		}
	}()
	return ch, nil
}

// holdSettlement is what the ledger reads of a hold invoice's state.
func holdSettlement(hash string, st *holdState) ledger.InvoiceSettlement {
	out := ledger.InvoiceSettlement{PaymentHash: hash, AmountMsat: st.ReceivedMsat}
	switch st.State {
	case holdAccepted:
		out.Held, out.HeldUntil = true, st.HeldUntil
	case holdSettled:
		out.Settled, out.Preimage = true, st.Preimage
	case holdCancelled:
		out.Cancelled = true
	}
	return out
}

// lookupHold reports the state of the hold invoice of hash, for
// reconciliation: from the plugin, or from the record when the plugin
// does not answer (then nothing is held). ledger.ErrUnknownInvoice when
// there is none.
func (n *Node) lookupHold(ctx context.Context, hash string) (*ledger.InvoiceSettlement, error) {
	st, err := n.holdState(ctx, holdWaitRequest{PaymentHash: hash})
	if err != nil {
		rec, rerr := n.holdRecord(ctx, hash)
		if rerr != nil {
			return nil, rerr
		}
		if rec == nil {
			return nil, ledger.ErrUnknownInvoice
		}
		st = &holdState{State: rec.State, Preimage: rec.Preimage, ReceivedMsat: rec.ReceivedMsat}
	}
	if st.Refused == refusedUnknown {
		return nil, ledger.ErrUnknownInvoice
	}
	out := holdSettlement(hash, st)
	return &out, nil
}

var (
	_ ledger.HoldNode    = (*Node)(nil)
	_ ledger.HoldWatcher = (*Node)(nil)
)
