package cln

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"
	"time"
)

// The guard plugin's hold invoices (holdwire.go): the HTLCs it holds for
// each, and the methods Hearth settles, cancels and follows them with.

// mppTimeout is how long the plugin holds the first parts of a payment
// whose parts do not reach its total, before it fails them back (BOLT 4's
// mpp_timeout; lightningd waits as long for its own invoices).
const mppTimeout = 60 * time.Second

// holder is the plugin's hold invoices, by payment hash.
type holder struct {
	node *Node // lightningd, for the datastore; set at init

	mu    sync.Mutex
	holds map[string]*heldInvoice
}

func newHolder() *holder { return &holder{holds: map[string]*heldInvoice{}} }

// heldInvoice is one hold invoice: its record and the HTLCs held for it.
// Its mutex orders its changes, the datastore's writes among them.
type heldInvoice struct {
	hash string
	node *Node

	mu       sync.Mutex
	rec      *holdRecord
	accepted bool // the parts held reach the amount
	parts    []heldPart
	mpp      *time.Timer   // fails incomplete parts back
	changed  chan struct{} // closed and replaced on every change
}

// heldPart is one HTLC held: the hook's call waits on verdict.
type heldPart struct {
	key                    string // channel/number
	amount, expiry, height int64
	verdict                chan hookVerdict
}

// get returns the hold invoice of hash, reading its record from the
// datastore the first time, and again while nothing is held for it (the
// terms of a creation that failed midway may have been replaced); nil
// when there is none.
func (h *holder) get(ctx context.Context, hash string) (*heldInvoice, error) {
	h.mu.Lock()
	inv := h.holds[hash]
	h.mu.Unlock()
	if inv != nil && !inv.unheld() {
		return inv, nil
	}
	var res listdatastoreResponse
	if err := h.node.call(ctx, listdatastoreRequest{Key: holdKey(hash)}, &res); err != nil {
		return nil, err
	}
	if len(res.Datastore) == 0 || res.Datastore[0].String == nil {
		return inv, nil
	}
	rec, err := decodeHoldRecord(*res.Datastore[0].String)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if inv = h.holds[hash]; inv == nil {
		inv = &heldInvoice{hash: hash, node: h.node, rec: rec, changed: make(chan struct{})}
		h.holds[hash] = inv
		return inv, nil
	}
	inv.mu.Lock()
	if inv.rec.State == holdOpen && !inv.accepted && len(inv.parts) == 0 {
		inv.rec = rec
	}
	inv.mu.Unlock()
	return inv, nil
}

// unheld reports whether inv is open with nothing held: its record may
// have changed in the datastore.
func (inv *heldInvoice) unheld() bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.rec.State == holdOpen && !inv.accepted && len(inv.parts) == 0
}

// htlcAccepted is the htlc_accepted hook: an HTLC that ends here for a
// hold invoice is held until Hearth settles or cancels it (or resolved or
// failed at once, as decided already); any other goes on as lightningd
// would take it.
func (h *holder) htlcAccepted(c *pluginCall) (any, error) {
	var in htlcAccepted
	if err := errors.Join(json.Unmarshal(c.Onion, &in.Onion), json.Unmarshal(c.HTLC, &in.HTLC)); err != nil {
		log.Printf("hearth invoice guard: reading an HTLC: %v", err)
		return hookContinue, nil
	}
	if in.forwarded() {
		return hookContinue, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	inv, err := h.get(ctx, strings.ToLower(in.HTLC.PaymentHash))
	cancel()
	if err != nil {
		// lightningd fails an HTLC it has no invoice for: no hold is lost
		// that could not be paid again.
		log.Printf("hearth invoice guard: looking up a hold invoice: %v", err)
		return hookContinue, nil
	}
	if inv == nil {
		h.noteKeysend(&in)
		return hookContinue, nil
	}
	return <-inv.arrive(&in), nil
}

// arrive takes an HTLC for inv and returns the channel its verdict comes
// on: at once, or when Hearth settles or cancels.
func (inv *heldInvoice) arrive(in *htlcAccepted) <-chan hookVerdict {
	out := make(chan hookVerdict, 1)
	inv.mu.Lock()
	defer inv.mu.Unlock()
	r := inv.rec
	fail := func(why string) <-chan hookVerdict {
		log.Printf("hearth invoice guard: hold invoice %s: failing an HTLC of %d msat: %s", inv.hash, in.HTLC.AmountMsat, why)
		out <- failUnknown(in.HTLC.AmountMsat, in.height())
		return out
	}
	switch {
	case r.State == holdSettled && slices.Contains(r.Parts, in.key()):
		out <- hookVerdict{Result: "resolve", PaymentKey: r.Preimage} // replayed after a crash
		return out
	case r.State == holdSettled:
		return fail("settled already")
	case r.State == holdCancelled:
		return fail("cancelled")
	case inv.accepted:
		return fail("paid already: the parts held reach the amount")
	case in.Onion.PaymentSecret != r.PaymentSecret:
		return fail("wrong payment secret")
	case in.Onion.TotalMsat < r.AmountMsat || in.Onion.TotalMsat > 2*r.AmountMsat:
		return fail(fmt.Sprintf("total %d msat for an invoice of %d", in.Onion.TotalMsat, r.AmountMsat))
	case !r.Accepted && r.expired(time.Now()):
		return fail("expired")
	case !r.Accepted && in.HTLC.CLTVExpiryRelative < r.CLTV:
		return fail(fmt.Sprintf("%d blocks to expiry, the invoice asks %d", in.HTLC.CLTVExpiryRelative, r.CLTV))
	}
	inv.parts = append(inv.parts, heldPart{key: in.key(), amount: in.HTLC.AmountMsat, expiry: in.HTLC.CLTVExpiry, height: in.height(), verdict: out})
	if inv.received() >= in.Onion.TotalMsat {
		if inv.mpp != nil {
			inv.mpp.Stop()
		}
		inv.accepted = true
		if !r.Accepted {
			// Stored, so that the HTLCs lightningd replays after a restart
			// are held again, however near their expiry or the invoice's.
			next := *r
			next.Accepted = true
			if err := inv.store(&next); err != nil {
				log.Printf("hearth invoice guard: hold invoice %s: %v", inv.hash, err)
			}
		}
		inv.change()
		return out
	}
	if inv.mpp == nil && !inv.accepted {
		inv.mpp = time.AfterFunc(mppTimeout, inv.timeOut)
	}
	return out
}

// timeOut fails back the parts of a payment that never reached its total.
func (inv *heldInvoice) timeOut() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.mpp = nil
	if inv.accepted {
		return
	}
	for _, p := range inv.parts {
		p.verdict <- hookVerdict{Result: "fail", FailureMessage: "0017"} // mpp_timeout
	}
	inv.parts = nil
}

// received is the sum of the parts held. Under inv.mu.
func (inv *heldInvoice) received() int64 {
	var sum int64
	for _, p := range inv.parts {
		sum += p.amount
	}
	return sum
}

// change wakes the waiters of hearth-holdwait. Under inv.mu.
func (inv *heldInvoice) change() {
	close(inv.changed)
	inv.changed = make(chan struct{})
}

// state is what hearth-holdwait answers of inv. Under inv.mu.
func (inv *heldInvoice) state() holdState {
	switch {
	case inv.rec.State != holdOpen:
		return holdState{State: inv.rec.State, Preimage: inv.rec.Preimage, ReceivedMsat: inv.rec.ReceivedMsat}
	case !inv.accepted:
		return holdState{State: holdOpen}
	}
	st := holdState{State: holdAccepted, ReceivedMsat: inv.received()}
	for _, p := range inv.parts {
		if st.HeldUntil == 0 || p.expiry < st.HeldUntil {
			st.HeldUntil = p.expiry
		}
	}
	return st
}

// failUnknown is BOLT 4's incorrect_or_unknown_payment_details for an HTLC
// of amount msat at height.
func failUnknown(amount, height int64) hookVerdict {
	return hookVerdict{Result: "fail", FailureMessage: fmt.Sprintf("400f%016x%08x", uint64(amount), uint32(height))}
}

// preimageOf checks that preimage (hex) hashes to hash.
func preimageOf(hash, preimage string) bool {
	raw, err := hex.DecodeString(preimage)
	if err != nil || len(raw) != 32 {
		return false
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]) == strings.ToLower(hash)
}
