package nwc

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

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
		Filter: host.EventFilter{Types: []string{event.InvoiceSettled, event.InvoiceAccepted, event.PaymentSettled}},
		Batch:  consumeBatch,
		Handle: p.enqueue,
		After:  p.host.KickSends,
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

// enqueue seals and queues the notifications of evs on every relay, as
// sends of the host's sender through the plugin's relay transport, each
// once (a batch read again after a crash queues nothing twice).
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
	var sends []host.Send
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
				sends = append(sends, host.Send{Via: via, Kind: "nwc-notification", URL: r, Body: []byte(sealed),
					Key: notificationKey(c.ID, e.ID, r), GiveUpAfter: p.cfg.RetryWindow})
			}
		}
	}
	return p.queue(ctx, sends)
}

// notificationKey names the notification of event to connection on relay.
func notificationKey(connection string, event int64, relay string) string {
	sum := sha256.Sum256([]byte(relay))
	return fmt.Sprintf("%s %d %x", connection, event, sum[:8])
}

// notificationOf is the notification of an outbox event, nil for none.
func notificationOf(e host.Event) *notification {
	switch d := e.Data.(type) {
	case *ledger.Invoice:
		switch e.Type {
		case event.InvoiceSettled:
			return &notification{Type: "payment_received", Notification: incoming(d)}
		case event.InvoiceAccepted:
			return &notification{Type: "hold_invoice_accepted", Notification: incoming(d)}
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

// via is the transport the notifications go by: a publication on one of
// the plugin's relay connections.
const via = "relay"

// send publishes the notifications queued on the host's sender, on the
// plugin's relay connections, until ctx ends. A relay the plugin is not
// connected to is tried again once it is (no attempt counts); one no
// longer configured, or a notification that cannot be read, is given up.
func (p *Plugin) send(ctx context.Context) {
	err := p.host.Deliver(ctx, host.Transport{Via: via, Poll: p.cfg.Poll, FirstRetry: p.cfg.FirstRetry, MaxBackoff: p.cfg.MaxBackoff,
		Deliver: p.publishNotification, Attempted: p.attempted})
	if err != nil && ctx.Err() == nil {
		p.log.ErrorContext(ctx, "nwc: the notifications' transport", "err", err)
	}
}

// publishNotification publishes the sealed events of a notification on
// relay, each of them.
func (p *Plugin) publishNotification(ctx context.Context, relay string, body []byte) error {
	var evs []*gonostr.Event
	if err := json.Unmarshal(body, &evs); err != nil {
		return fmt.Errorf("reading a notification: %v: %w", err, host.ErrGiveUp)
	}
	r := p.relays.relays[relay]
	if r == nil {
		return fmt.Errorf("the relay %s is no longer configured: %w", relay, host.ErrGiveUp)
	}
	for _, ev := range evs {
		if err := r.publish(ctx, ev); err != nil {
			if err == errRelayDown {
				p.log.InfoContext(ctx, "nwc: a notification waits for its relay", "relay", relay)
			}
			return err
		}
	}
	return nil
}

// attempted counts a publication's attempt.
func (p *Plugin) attempted(_ context.Context, st *host.SendStatus) {
	switch st.State {
	case host.SendDelivered:
		p.published.Published()
	case host.SendGivenUp:
		p.published.Failed(true)
	default:
		p.published.Failed(false)
	}
}
