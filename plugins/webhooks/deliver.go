package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/hearthwallet/hearth/host"
)

// consumeBatch is how many events the consumer reads at a time.
const consumeBatch = 256

// readEvery is the shortest time between two reads of the consumer once
// it has caught up.
const readEvery = 10 * time.Millisecond

// consume queues a delivery per active webhook that wants each event,
// after the cursor, and moves the cursor past the events it queued. While
// no webhook is active it moves the cursor without reading the events: a
// webhook created meanwhile hears of none written before it was looked
// for, and of every one after.
func (p *Plugin) consume(ctx context.Context, events *host.Events) {
	events.Consume(ctx, host.Consumer{
		Name:   "webhooks: queueing events",
		Batch:  consumeBatch,
		Handle: p.enqueue,
		After:  p.kick,
		// A receiver waits on each event: read again as soon as the head
		// moves (readings of the head are 25 ms apart at least), not
		// after the outbox's 50 ms between reads.
		Every: readEvery,
		Idle: func(ctx context.Context) (bool, error) {
			active, err := p.anyActive(ctx)
			return !active, err
		},
		Poll: p.cfg.Poll,
		Log:  p.log,
	})
}

// enqueue queues evs for the webhooks that want them. A webhook created
// while the plugin had events left to read (seconds, unless every replica
// was down) gets those too: its wallet's, and of the types it asked for.
func (p *Plugin) enqueue(ctx context.Context, evs []host.Event) error {
	if len(evs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var wallets []string
	for _, e := range evs {
		if !seen[e.WalletID] {
			seen[e.WalletID] = true
			wallets = append(wallets, e.WalletID)
		}
	}
	hooks, err := p.activeHooks(ctx, wallets)
	if err != nil || len(hooks) == 0 {
		return err
	}
	now := time.Now().UTC()
	var ds []deliveryRow
	for _, e := range evs {
		for i := range hooks {
			h := &hooks[i]
			if h.WalletID != e.WalletID || !h.wants(e.Type) {
				continue
			}
			body, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("encoding event %d: %w", e.ID, err)
			}
			ds = append(ds, deliveryRow{WebhookID: h.ID, EventID: e.ID, Body: string(body), State: pending,
				NextAt: now, CreatedAt: now})
		}
	}
	return p.queue(ctx, ds)
}

// send delivers the queues until ctx ends: each due head of a webhook's
// queue, one request in flight per webhook, Parallel at most at once.
func (p *Plugin) send(ctx context.Context) {
	busy := map[string]bool{}
	finished := make(chan string, p.cfg.Parallel)
	poll := time.NewTicker(p.cfg.Poll)
	defer poll.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	p.pruneLogged(ctx)
	defer func() {
		for range len(busy) {
			<-finished
		}
	}()
	for {
		if free := p.cfg.Parallel - len(busy); free > 0 {
			ds, err := p.due(ctx, time.Now().UTC(), busy, free)
			if err != nil && ctx.Err() == nil {
				p.log.WarnContext(ctx, "webhooks: reading the queue", "err", err)
			}
			for _, d := range ds {
				busy[d.WebhookID] = true
				go func() {
					p.attempt(ctx, &d)
					finished <- d.WebhookID
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case id := <-finished:
			delete(busy, id)
		case <-p.wake:
		case <-poll.C:
		case <-prune.C:
			p.pruneLogged(ctx)
		}
	}
}

// What the plugin keeps: a delivery done (delivered or given up) for
// keepDone, an attempt for keepAttempts; pruned every pruneEvery.
const (
	keepDone     = 7 * 24 * time.Hour
	keepAttempts = 30 * 24 * time.Hour
	pruneEvery   = time.Hour
)

func (p *Plugin) pruneLogged(ctx context.Context) {
	if err := p.prune(ctx, time.Now().UTC()); err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "webhooks: pruning", "err", err)
	}
}

// maxError bounds the error text kept for an attempt.
const maxError = 300

// attempt sends one delivery and records what came of it.
func (p *Plugin) attempt(ctx context.Context, d *deliveryRow) {
	h, err := p.hook(ctx, d.WebhookID, "")
	if err != nil {
		if ctx.Err() == nil {
			p.log.WarnContext(ctx, "webhooks: reading a webhook", "webhook", d.WebhookID, "err", err)
		}
		return
	}
	if !h.Active {
		return
	}
	start := time.Now()
	body := []byte(d.Body)
	resp, err := p.out.Do(ctx, nil, host.OutboundRequest{
		Method: http.MethodPost,
		URL:    h.URL,
		Headers: map[string]string{
			"Content-Type":    "application/json",
			SignatureHeader:   Sign(h.Secret, start, body),
			"Hearth-Event-Id": strconv.FormatInt(d.EventID, 10),
		},
		Body:             body,
		NoRedirects:      true,
		PlainPrivateOnly: true,
	})
	if ctx.Err() != nil {
		return // shutting down, or the lead moved: the next leader sends it again
	}
	o := outcome{duration: time.Since(start), at: time.Now().UTC()}
	if err != nil {
		p.metrics.Attempted(0)
	} else {
		p.metrics.Attempted(resp.Status)
	}
	switch {
	case err != nil:
		o.err = errText(err.Error())
	case resp.Status >= 200 && resp.Status < 300:
		o.ok = true
		o.status = &resp.Status
	case resp.Status >= 300 && resp.Status < 400:
		o.status = &resp.Status
		o.err = errText(fmt.Sprintf("redirect to %q not followed: a webhook URL must answer 2xx itself", resp.Headers["Location"]))
	default:
		o.status = &resp.Status
		o.err = errText(fmt.Sprintf("HTTP %d", resp.Status))
	}
	next := o.at.Add(p.backoff(d.Attempts + 1))
	if err := p.record(ctx, d, o, next); err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "webhooks: recording an attempt", "webhook", d.WebhookID, "event", d.EventID, "err", err)
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

func errText(s string) *string {
	if len(s) > maxError {
		s = s[:maxError] + "…"
	}
	return &s
}
