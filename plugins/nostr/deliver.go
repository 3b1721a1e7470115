package nostr

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
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
		After:  p.host.KickSends,
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

// via is the transport the receipts go by: a publication on a relay.
const via = "relay"

// send publishes the receipts queued on the host's sender, through the
// plugin's transport, and prunes the unpaid zap requests now and then,
// until ctx ends.
func (p *Plugin) send(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		prune := time.NewTicker(time.Hour)
		defer prune.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-prune.C:
				if err := p.prune(ctx, time.Now().UTC().Add(-7*24*time.Hour)); err != nil && ctx.Err() == nil {
					p.log.WarnContext(ctx, "nostr: pruning unpaid zap requests", "err", err)
				}
			}
		}
	})
	err := p.host.Deliver(ctx, host.Transport{Via: via, Parallel: p.cfg.Parallel, Poll: p.cfg.Poll,
		FirstRetry: p.cfg.FirstRetry, MaxBackoff: p.cfg.MaxBackoff, Grace: stopGrace,
		// A relay that already has the receipt (sent again after a
		// delivery was cut short) answers OK too ("duplicate:").
		Deliver: func(ctx context.Context, relay string, receipt []byte) error {
			return p.publish(ctx, relay, string(receipt))
		},
		Attempted: p.attempted})
	if err != nil && ctx.Err() == nil {
		p.log.ErrorContext(ctx, "nostr: the receipts' transport", "err", err)
	}
}

// stopGrace is how long a publication in flight may finish after the
// lead ended.
const stopGrace = 2 * time.Second

// attempted counts an attempt and, once the receipt is published on its
// relay or given up there, keeps the outcome in the relay's row (which
// outlives the send's).
func (p *Plugin) attempted(ctx context.Context, st *host.SendStatus) {
	switch st.State {
	case host.SendPending:
		p.receipts.Failed(false)
		return
	case host.SendDelivered:
		p.receipts.Published()
	default:
		p.receipts.Failed(true)
	}
	if err := p.settled(ctx, st); err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "nostr: recording a publication", "send", st.ID, "err", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
