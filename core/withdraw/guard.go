package withdraw

import (
	"context"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
)

// Ledger is what the guard asks of the ledger (ledger.Service has it).
type Ledger interface {
	NodeMayAccept(ctx context.Context, paymentHash string) (bool, error)
}

// pace spaces the cancels while the node's guard is up. The guard already
// refuses every payment to an invoice settled inside the instance, so the
// cancels are then only the cover for a Hearth that is down (no guard):
// they go on at most one per Config.GuardedEvery, and leave the machine to
// the payments. Without the guard, they go as fast as the node takes them.
type pace struct {
	every time.Duration

	mu      sync.Mutex
	guarded bool
	next    time.Time // the earliest start of the next cancel
}

// set records whether the guard is up; from its start the cancels wait.
func (p *pace) set(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.guarded = up
	if up {
		p.next = time.Now().Add(p.every)
	}
}

// wait holds a cancel back until its turn while the guard is up, and
// reports false if ctx ended first.
func (p *pace) wait(ctx context.Context) bool {
	p.mu.Lock()
	if !p.guarded {
		p.mu.Unlock()
		return ctx.Err() == nil
	}
	start := time.Now()
	if start.Before(p.next) {
		start = p.next
	}
	p.next = start.Add(p.every)
	p.mu.Unlock()
	t := time.NewTimer(time.Until(start))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// guard keeps the node's invoice guard up while this replica leads, and
// puts it back, after a wait that grows while it fails, when it ends.
func (w *withdrawal) guard(ctx context.Context, g ledger.InvoiceGuard, led Ledger) {
	accept := func(ctx context.Context, hash string) bool {
		actx, stop := context.WithTimeout(ctx, w.cfg.AcceptTimeout)
		defer stop()
		ok, err := led.NodeMayAccept(actx, hash)
		if err != nil {
			// Unsure, the node decides as it would without a guard: should
			// the invoice have been settled inside, the ledger's node
			// stream credits it once and asks for a refund.
			w.cfg.Log.WarnContext(ctx, "cannot tell the node whether to accept a payment; it accepts it", "payment_hash", hash, "err", err)
			return true
		}
		return ok
	}
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, w.cfg.RetryMax) {
		start := time.Now()
		err := g.GuardInvoices(ctx, accept, func() {
			w.pace.set(true)
			w.cfg.Log.InfoContext(ctx, "the node asks before it accepts a payment to an invoice settled inside the instance")
		})
		w.pace.set(false)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > time.Minute {
			wait = 100 * time.Millisecond
		}
		w.cfg.Log.WarnContext(ctx, "the node's invoice guard ended; invoices settled inside are withdrawn at full speed meanwhile", "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
