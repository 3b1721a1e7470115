package nostr

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// consumeBatch is how many events the consumer reads at a time.
const consumeBatch = 256

// consume answers each settled invoice that has a zap request with a
// signed receipt, queued on its relays, after the cursor, and moves the
// cursor past them. Receipt and queue are one transaction, done once per
// invoice: an event read again after a restart (the cursor is saved now
// and then) finds its receipt there and queues nothing new. Zaps come
// through a Lightning Address's callback, which tags its invoices: the
// invoices no plugin tagged (internal payments' most) are not read.
func (p *Plugin) consume(ctx context.Context, events *host.Events) {
	events.Consume(ctx, host.Consumer{
		Name:   "nostr: answering zaps",
		Filter: host.EventFilter{Types: []string{event.InvoiceSettled}, Tagged: true},
		Batch:  consumeBatch,
		Handle: p.answerAll,
		After:  p.kick,
		Every:  receiptEvery,
		Log:    p.log,
	})
}

// receiptEvery is the shortest time between two reads of the settled zap
// invoices: a receipt may wait that long, and at low rates, where each
// read found nothing, the reads (two statements each on PostgreSQL) were
// some 9 % of Hearth's CPU at 100 internal payments a second.
const receiptEvery = 250 * time.Millisecond

// answerAll signs and queues the receipts of the zaps among evs.
func (p *Plugin) answerAll(ctx context.Context, evs []host.Event) error {
	ids := make([]string, 0, len(evs))
	invs := map[string]*ledger.Invoice{}
	for _, e := range evs {
		if inv, ok := e.Data.(*ledger.Invoice); ok && e.Type == event.InvoiceSettled {
			ids = append(ids, inv.ID)
			invs[inv.ID] = inv
		}
	}
	zs, err := p.unanswered(ctx, ids)
	if err != nil {
		return err
	}
	for i := range zs {
		z := &zs[i]
		inv := invs[z.InvoiceID]
		if inv.LnInvoice == nil {
			continue
		}
		paid := time.Now().UTC()
		if inv.PaymentTime != nil {
			paid = inv.PaymentTime.UTC()
		}
		rc, err := p.receipt(z.Request, inv.LnInvoice.Bolt11, inv.LnInvoice.PaymentPreimage, paid)
		if err != nil {
			return err
		}
		relays := p.requestRelays(z.Request)
		for _, r := range p.cfg.DefaultRelays {
			if !contains(relays, r) {
				relays = append(relays, r)
			}
		}
		if err := p.answer(ctx, z, rc.String(), rc.ID, paid, relays); err != nil {
			return fmt.Errorf("zap of invoice %s: %w", z.InvoiceID, err)
		}
		p.log.InfoContext(ctx, "nostr: zap receipt queued", "invoice", z.InvoiceID, "receipt", rc.ID, "relays", len(relays))
	}
	return nil
}

// requestRelays are the relays of a stored request (validated when it was
// received: parse, which checks p and amount too, is not repeated).
func (p *Plugin) requestRelays(raw string) []string {
	var ev gonostr.Event
	if json.Unmarshal([]byte(raw), &ev) != nil {
		return nil
	}
	return p.relaysOf(ev)
}

// relayKey is one receipt on one relay.
type relayKey struct{ invoice, relay string }

// send publishes the due receipts until ctx ends, Parallel at most at once.
func (p *Plugin) send(ctx context.Context) {
	busy := map[relayKey]bool{}
	finished := make(chan relayKey, p.cfg.Parallel)
	poll := time.NewTicker(p.cfg.Poll)
	defer poll.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	defer func() {
		for range len(busy) {
			<-finished
		}
	}()
	for {
		if free := p.cfg.Parallel - len(busy); free > 0 {
			rs, err := p.due(ctx, time.Now().UTC(), busy, free)
			if err != nil && ctx.Err() == nil {
				p.log.WarnContext(ctx, "nostr: reading the queue", "err", err)
			}
			for _, r := range rs {
				k := relayKey{r.InvoiceID, r.Relay}
				busy[k] = true
				go func() {
					p.attempt(ctx, &r)
					finished <- k
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case k := <-finished:
			delete(busy, k)
		case <-p.wake:
		case <-poll.C:
		case <-prune.C:
			if err := p.prune(ctx, time.Now().UTC().Add(-7*24*time.Hour)); err != nil && ctx.Err() == nil {
				p.log.WarnContext(ctx, "nostr: pruning unpaid zap requests", "err", err)
			}
		}
	}
}

// maxError bounds the error text kept for a relay.
const maxError = 300

// stopGrace is how long a publication in flight may finish after the
// lead ended.
const stopGrace = 2 * time.Second

// attempt publishes one receipt on one relay and records what came of it.
func (p *Plugin) attempt(ctx context.Context, r *relayRow) {
	rc, err := p.receiptOf(ctx, r.InvoiceID)
	if err != nil {
		if ctx.Err() == nil {
			p.log.WarnContext(ctx, "nostr: reading a receipt", "invoice", r.InvoiceID, "err", err)
		}
		return
	}
	// A publication in flight when the lead ends (shutdown, or the lead
	// lost) is given stopGrace to get its OK and be recorded, so that a
	// restart does not send it again; cut short, the next leader sends the
	// same signed event again, and the relay, which keeps events by id,
	// answers "duplicate:".
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(stopGrace, cancel) })
	defer stop()
	err = p.publish(pctx, r.Relay, rc)
	if pctx.Err() != nil {
		return // cut short: not recorded, published again by the next leader
	}
	ctx = pctx
	now := time.Now().UTC()
	r.Attempts++
	if err == nil {
		r.State, r.PublishedAt, r.LastError = published, &now, nil
		p.receipts.Published()
	} else {
		s := err.Error()
		if len(s) > maxError {
			s = s[:maxError] + "…"
		}
		r.LastError = &s
		r.NextAt = now.Add(p.backoff(r.Attempts))
		if r.NextAt.Sub(r.CreatedAt) > p.cfg.RetryWindow {
			r.State = givenUp
		}
		p.receipts.Failed(r.State == givenUp)
	}
	if err := p.record(ctx, r); err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "nostr: recording a publication", "invoice", r.InvoiceID, "relay", r.Relay, "err", err)
	}
}

// backoff is the wait after the n-th failed attempt: FirstRetry doubled
// for each earlier failure, capped at MaxBackoff, plus up to 20 % jitter.
func (p *Plugin) backoff(n int) time.Duration {
	d := p.cfg.FirstRetry
	for i := 1; i < n && d < p.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, p.cfg.MaxBackoff)
	return d + rand.N(d/5+1)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
