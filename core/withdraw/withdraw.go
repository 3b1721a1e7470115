// Package withdraw takes back from a real Lightning node the invoices
// settled inside the instance. An internal payment settles the payee's
// invoice in the ledger only; the node still holds it open, and an outside
// payer could pay it there too. The payer's answer does not wait for the
// node: the settlement's own invoice.settled event (ledger Internal, in
// the outbox, written in the payment's transaction) is the durable queue,
// and one replica at a time (outbox.Lead) reads it with its own cursor and
// cancels those invoices at the node, several at once, retrying until the
// node confirms. The cursor moves past an event only once its invoice is
// withdrawn, so a crash or a node that is down delays a cancel, never
// loses it.
//
// Should an outside payer pay such an invoice at the node before the
// cancel, the ledger's node stream does not credit it twice and tells the
// operator what to refund (ledger.SettleInvoice); the node then answers the
// cancel that the invoice is settled, which counts as done here.
package withdraw

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
)

// Consumer names the withdrawal's cursor and lock in the outbox.
const Consumer = "ledger:withdraw-internal"

// Canceller is what the withdrawal needs of the node (ledger.Node has it).
type Canceller interface {
	CancelInvoice(ctx context.Context, paymentHash string) error
}

// Config tunes the withdrawal; the zero Config is production's.
type Config struct {
	// InFlight is how many cancels wait on the node at once. Default 8.
	InFlight int
	// Batch is how many events are read at a time. Default 256.
	Batch int
	// Timeout bounds one cancel. Default 30s.
	Timeout time.Duration
	// RetryMax caps the wait between attempts while the node refuses or
	// is down (it starts at 100ms and doubles). Default 30s.
	RetryMax time.Duration
	Log      *slog.Logger
	// GuardedEvery spaces the cancels while the node's guard is up (see
	// pace). Default 10ms: up to 100 cancels a second.
	GuardedEvery time.Duration
	// AcceptTimeout bounds the guard's read of the ledger for one payment
	// arriving at the node. Default 2s.
	AcceptTimeout time.Duration
	// Observe, when set, is told each withdrawn invoice's delay: from its
	// settlement inside the instance to the node's confirmation of the
	// cancel. Without a guard, an outside payer could still pay it at the
	// node all that time.
	Observe func(delay time.Duration)
}

func (c *Config) defaults() {
	if c.InFlight <= 0 {
		c.InFlight = 8
	}
	if c.Batch <= 0 {
		c.Batch = 256
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 30 * time.Second
	}
	if c.GuardedEvery <= 0 {
		c.GuardedEvery = 10 * time.Millisecond
	}
	if c.AcceptTimeout <= 0 {
		c.AcceptTimeout = 2 * time.Second
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Run withdraws, until ctx ends, every internally settled invoice from
// node, on whichever replica leads the consumer. There, a node that can
// guard its invoices (ledger.InvoiceGuard) asks led before it accepts a
// payment to one, so that one settled inside is refused at once.
func Run(ctx context.Context, box *outbox.Outbox, node Canceller, led Ledger, cfg Config) {
	cfg.defaults()
	box.Lead(ctx, Consumer, func(ctx context.Context) {
		w := &withdrawal{node: node, cfg: cfg, pace: &pace{every: cfg.GuardedEvery}}
		if g, ok := node.(ledger.InvoiceGuard); ok && led != nil {
			var wg sync.WaitGroup
			defer wg.Wait()
			gctx, stop := context.WithCancel(ctx)
			defer stop()
			wg.Go(func() { w.guard(gctx, g, led) })
		}
		cur := w.cursor(ctx, box)
		if cur == nil {
			return
		}
		defer func() {
			if err := cur.Save(context.WithoutCancel(ctx)); err != nil {
				cfg.Log.WarnContext(ctx, "saving the withdrawal's cursor", "err", err)
			}
		}()
		w.follow(ctx, cur)
	})
}

// withdrawal is one lead's work.
type withdrawal struct {
	node Canceller
	cfg  Config
	pace *pace
}

// filter reads the invoices' settlements (every ledger but on-chain's).
var filter = outbox.Filter{Types: []string{event.InvoiceSettled}}

// cursor reads the consumer's cursor, trying again while the database
// fails; nil when ctx ends first. A new cursor starts at the first event:
// an invoice settled internally before the withdrawal first ran may not
// have been cancelled (the cancel was once a best effort), and a cancel
// the node already did is confirmed at once.
func (w *withdrawal) cursor(ctx context.Context, box *outbox.Outbox) *outbox.Cursor {
	for wait := time.Second; ; wait = min(2*wait, time.Minute) {
		cur, err := box.CursorFrom(ctx, Consumer, 0)
		if err == nil {
			return cur
		}
		if ctx.Err() != nil {
			return nil
		}
		w.cfg.Log.WarnContext(ctx, "reading the withdrawal's cursor", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// follow withdraws the invoices of each page of events, then moves the
// cursor past the page, until ctx ends.
func (w *withdrawal) follow(ctx context.Context, cur *outbox.Cursor) {
	for {
		evs, err := cur.Next(ctx, filter, w.cfg.Batch)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.cfg.Log.WarnContext(ctx, "reading the settlements to withdraw from the node", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		var todo []pending
		for _, e := range evs {
			if inv, ok := e.Data.(*ledger.Invoice); ok && inv.Ledger == ledger.LedgerInternal {
				todo = append(todo, pending{hash: inv.PaymentHash, settled: e.CreatedAt})
			}
		}
		if !w.withdrawAll(ctx, todo) {
			return
		}
		if err := cur.Done(ctx, evs[len(evs)-1].ID); err != nil {
			w.cfg.Log.WarnContext(ctx, "saving the withdrawal's cursor", "err", err)
		}
	}
}

// pending is an invoice to withdraw: its payment hash, and when it was
// settled inside the instance.
type pending struct {
	hash    string
	settled time.Time
}

// withdrawAll cancels every invoice of todo at the node, InFlight at a
// time, and again those the node did not confirm, after a wait that grows
// while it keeps failing. It reports false if ctx ended first.
func (w *withdrawal) withdrawAll(ctx context.Context, todo []pending) bool {
	wait := 100 * time.Millisecond
	for len(todo) > 0 {
		failed, first := w.attempt(ctx, todo)
		if ctx.Err() != nil {
			return false
		}
		if len(failed) == 0 {
			return true
		}
		w.cfg.Log.WarnContext(ctx, "the node did not withdraw internally settled invoices; retrying",
			"invoices", len(failed), "first_payment_hash", failed[0].hash, "err", first, "retry_in", wait)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, w.cfg.RetryMax)
		todo = failed
	}
	return true
}

// attempt cancels each invoice of todo once, InFlight at a time, and
// returns those the node did not confirm, with the first error.
func (w *withdrawal) attempt(ctx context.Context, todo []pending) (failed []pending, first error) {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, w.cfg.InFlight)
	)
	for _, p := range todo {
		if !w.pace.wait(ctx) {
			wg.Wait()
			return nil, ctx.Err()
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-sem }()
			err := w.cancel(ctx, p)
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if first == nil {
				first = err
			}
			failed = append(failed, p)
		})
	}
	wg.Wait()
	return failed, first
}

// cancel withdraws one invoice; nil once the node will no longer take a
// payment for it: cancelled (now or before), settled at the node by an
// outside payer (the ledger's stream handles that), or unknown to it.
func (w *withdrawal) cancel(ctx context.Context, p pending) error {
	cctx, stop := context.WithTimeout(ctx, w.cfg.Timeout)
	defer stop()
	err := w.node.CancelInvoice(cctx, p.hash)
	switch {
	case errors.Is(err, ledger.ErrSettledAtNode):
		w.cfg.Log.WarnContext(ctx, "an invoice settled inside the instance was paid at the node before it was withdrawn; see the ledger's refund notice",
			"payment_hash", p.hash)
	case errors.Is(err, ledger.ErrUnknownInvoice):
	case err != nil:
		return err
	}
	if w.cfg.Observe != nil {
		w.cfg.Observe(time.Since(p.settled))
	}
	return nil
}
