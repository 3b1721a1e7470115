package nwc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// consumeBatch is how many events the consumer reads at a time.
const consumeBatch = 256

// consume queues a notification per connection that takes them, for each
// settled invoice (payment_received) and payment (payment_sent) of its
// wallet, after the plugin's durable cursor: written before the cursor
// moves past the event, so that a crash between the payment's commit and
// the publication loses nothing (at least once per connection).
func (p *Plugin) consume(ctx context.Context, events *host.Events) {
	events.Consume(ctx, host.Consumer{
		Name:   "nwc: queueing notifications",
		Filter: host.EventFilter{Types: []string{event.InvoiceSettled, event.PaymentSettled}},
		Batch:  consumeBatch,
		Handle: p.enqueue,
		After:  p.kick,
		Idle: func(ctx context.Context) (bool, error) {
			any, err := p.anyNotified(ctx)
			return !any, err
		},
		Poll: p.cfg.Poll,
		Log:  p.log,
	})
}

// notification is a notification's content.
type notification struct {
	Type         string       `json:"notification_type"`
	Notification *transaction `json:"notification"`
}

// enqueue seals and queues the notifications of evs on every relay.
func (p *Plugin) enqueue(ctx context.Context, evs []host.Event) error {
	seen := map[string]bool{}
	var wallets []string
	for _, e := range evs {
		if !seen[e.WalletID] {
			seen[e.WalletID] = true
			wallets = append(wallets, e.WalletID)
		}
	}
	conns, err := p.notified(ctx, wallets)
	if err != nil || len(conns) == 0 {
		return err
	}
	now := p.cfg.Now().UTC()
	var rows []notifyRow
	for _, e := range evs {
		n := notificationOf(e)
		if n == nil {
			continue
		}
		if err := p.withMetadata(ctx, e.WalletID, n.Notification); err != nil {
			return err
		}
		plain, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("encoding a notification: %w", err)
		}
		for i := range conns {
			c := &conns[i]
			if c.WalletID != e.WalletID {
				continue
			}
			secret, err := p.secretOf(c)
			if err != nil {
				return err
			}
			sealed, err := p.sealNotification(string(plain), secret, c.Pubkey)
			if err != nil {
				return err
			}
			for _, r := range p.relaysOf(c) {
				rows = append(rows, notifyRow{ConnectionID: c.ID, EventID: e.ID, Relay: r, Events: sealed,
					State: pending, NextAt: now, CreatedAt: now})
			}
		}
	}
	return p.queue(ctx, rows)
}

// notificationOf is the notification of an outbox event, nil for none.
func notificationOf(e host.Event) *notification {
	switch d := e.Data.(type) {
	case *ledger.Invoice:
		if e.Type == event.InvoiceSettled {
			return &notification{Type: "payment_received", Notification: incoming(d)}
		}
	case *ledger.Payment:
		if e.Type == event.PaymentSettled {
			return &notification{Type: "payment_sent", Notification: outgoing(d)}
		}
	}
	return nil
}

// sealNotification is a notification to a client in both encryptions
// (23197 in NIP-44 v2, 23196 in NIP-04, for clients of the NIP's first
// version), as a JSON array of the two signed events, signed by the
// connection's wallet key secret.
func (p *Plugin) sealNotification(plain, secret, peer string) (string, error) {
	a, err := p.sealed(kindNotifyNIP44v2, nip44v2, plain, secret, peer)
	if err != nil {
		return "", fmt.Errorf("sealing a notification: %w", err)
	}
	b, err := p.sealed(kindNotifyNIP04, nip04v, plain, secret, peer)
	if err != nil {
		return "", fmt.Errorf("sealing a notification: %w", err)
	}
	out, err := json.Marshal([]*gonostr.Event{a, b})
	return string(out), err
}

// announce publishes the info event on a relay just connected: the
// methods, the notifications and the encryptions the service speaks. It is
// replaceable, so the relay keeps the latest, and a change of version is
// announced on the next connection.
func (p *Plugin) announce(ctx context.Context, r *relay) {
	ev := &gonostr.Event{Kind: kindInfo, CreatedAt: gonostr.Timestamp(p.cfg.Now().Unix()),
		Content: strings.Join(append(append([]string{}, methodOrder...), notifications), " "),
		Tags:    gonostr.Tags{{"encryption", encryptions}, {"notifications", strings.Join(notificationTypes, " ")}}}
	if err := ev.Sign(p.secretKey()); err != nil {
		p.log.WarnContext(ctx, "nwc: signing the info event", "err", err)
		return
	}
	if err := r.publish(ctx, ev); err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "nwc: publishing the info event", "relay", r.url, "err", err)
	}
	p.announceConnections(ctx, r)
}

// send publishes the due notifications until ctx ends, one relay's
// publication at a time per notification.
func (p *Plugin) send(ctx context.Context) {
	poll := time.NewTicker(p.cfg.Poll)
	defer poll.Stop()
	for {
		rows, err := p.due(ctx, p.cfg.Now().UTC(), 64)
		if err != nil && ctx.Err() == nil {
			p.log.WarnContext(ctx, "nwc: reading the notifications", "err", err)
		}
		done := make(chan struct{}, len(rows))
		for i := range rows {
			go func() {
				p.attempt(ctx, &rows[i])
				done <- struct{}{}
			}()
		}
		for range rows {
			<-done
		}
		if len(rows) == 64 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-poll.C:
		}
	}
}

// attempt publishes one notification on its relay and records the outcome:
// published; retried with backoff; given up after RetryWindow. A relay the
// plugin is not connected to is tried again once it is (no attempt counts).
func (p *Plugin) attempt(ctx context.Context, n *notifyRow) {
	var evs []*gonostr.Event
	if err := json.Unmarshal([]byte(n.Events), &evs); err != nil {
		p.finish(ctx, n, givenUp, err)
		return
	}
	r := p.relays.relays[n.Relay]
	var err error
	if r == nil {
		err = fmt.Errorf("the relay %s is no longer configured", n.Relay)
		p.finish(ctx, n, givenUp, err)
		return
	}
	for _, ev := range evs {
		if err = r.publish(ctx, ev); err != nil {
			break
		}
	}
	now := p.cfg.Now().UTC()
	if err != nil && n.LastError == nil && ctx.Err() == nil {
		p.log.InfoContext(ctx, "nwc: a notification waits for its relay", "relay", n.Relay, "err", err)
	}
	switch {
	case err == nil:
		p.finish(ctx, n, published, nil)
		p.published.Published()
	case ctx.Err() != nil:
	case now.Sub(n.CreatedAt) > p.cfg.RetryWindow:
		p.finish(ctx, n, givenUp, err)
		p.published.Failed(true)
	case err == errRelayDown:
		p.retry(ctx, n, n.Attempts, now.Add(p.cfg.Poll), err)
		p.published.Failed(false)
	default:
		wait := p.cfg.FirstRetry << min(n.Attempts, 20)
		p.retry(ctx, n, n.Attempts+1, now.Add(min(wait, p.cfg.MaxBackoff)), err)
		p.published.Failed(false)
	}
}
