package nwc

import (
	"context"
	"fmt"
	"strings"
	"sync"

	gonostr "github.com/nbd-wtf/go-nostr"
)

// kindDeletion is NIP-09's deletion request.
const kindDeletion = 5

// infoEvent is conn's own info event (kind 13194, replaceable): signed by
// its wallet key, listing that connection's methods and notifications,
// p-tagged with the app's key (how NIP-47 addresses an info event whose
// wallet key is unique to one connection, and what an app paired over
// nostr+walletauth waits for). Dated at the connection's creation, or at
// the change of its methods that made it anew (infoTime), it is the same
// event at every publication: a relay that holds it answers duplicate.
func (p *Plugin) infoEvent(conn *connRow) (*gonostr.Event, error) {
	secret, err := p.secretOf(conn)
	if err != nil {
		return nil, err
	}
	tags := gonostr.Tags{{"encryption", encryptions}, {"p", conn.Pubkey}}
	if conn.allows(notifications) {
		tags = append(tags, gonostr.Tag{"notifications", strings.Join(notificationTypes, " ")})
	}
	ev := &gonostr.Event{Kind: kindInfo, CreatedAt: gonostr.Timestamp(conn.infoTime()), Content: conn.Methods, Tags: tags}
	if err := ev.Sign(secret); err != nil {
		return nil, fmt.Errorf("signing an info event: %w", err)
	}
	return ev, nil
}

// infoDeletion asks the relays to delete conn's info event (NIP-09): by
// its id, and by its address (kind:pubkey:) for relays that delete a
// replaceable event so.
func (p *Plugin) infoDeletion(conn *connRow) (*gonostr.Event, error) {
	info, err := p.infoEvent(conn)
	if err != nil {
		return nil, err
	}
	secret, err := p.secretOf(conn)
	if err != nil {
		return nil, err
	}
	ev := &gonostr.Event{Kind: kindDeletion, CreatedAt: gonostr.Timestamp(p.cfg.Now().Unix()),
		Content: "the wallet connection was revoked",
		Tags: gonostr.Tags{{"e", info.ID}, {"a", fmt.Sprintf("%d:%s:", kindInfo, info.PubKey)},
			{"k", fmt.Sprint(kindInfo)}}}
	if ev.CreatedAt < info.CreatedAt {
		ev.CreatedAt = info.CreatedAt
	}
	if err := ev.Sign(secret); err != nil {
		return nil, fmt.Errorf("signing an info event's deletion: %w", err)
	}
	return ev, nil
}

// stateEvent is what the relays should hold of conn: its info event while
// it lives, the deletion of it once revoked.
func (p *Plugin) stateEvent(conn *connRow) (*gonostr.Event, error) {
	if conn.RevokedAt != nil {
		return p.infoDeletion(conn)
	}
	return p.infoEvent(conn)
}

// announceConnections publishes, on relay r just connected, the state
// event of every connection with its own key paired on r (info events of
// the live, deletions of the recently revoked), 16 at a time.
func (p *Plugin) announceConnections(ctx context.Context, r *relay) {
	rows, err := p.listened(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.log.WarnContext(ctx, "nwc: reading the connections to announce", "err", err)
		}
		return
	}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range rows {
		if !p.pairedOn(&rows[i], r.url) {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(c *connRow) {
			defer func() { <-sem; wg.Done() }()
			ev, err := p.stateEvent(c)
			if err == nil {
				err = r.publish(ctx, ev)
			}
			if err != nil && ctx.Err() == nil {
				p.log.WarnContext(ctx, "nwc: publishing a connection's info event", "relay", r.url, "err", err)
			}
		}(&rows[i])
	}
	wg.Wait()
}

// announceChange publishes conn's state event on its relays (those this
// replica is connected to; a relay connected later gets it then).
func (p *Plugin) announceChange(ctx context.Context, conn *connRow) {
	ev, err := p.stateEvent(conn)
	if err != nil {
		p.log.WarnContext(ctx, "nwc: a connection's info event", "err", err)
		return
	}
	for _, u := range p.relaysOf(conn) {
		r := p.relays.relays[u]
		if r == nil {
			continue
		}
		if err := r.publish(ctx, ev); err != nil && err != errRelayDown && ctx.Err() == nil {
			p.log.WarnContext(ctx, "nwc: publishing a connection's info event", "relay", u, "err", err)
		}
	}
}

// pairedOn reports whether conn was paired on relay url.
func (p *Plugin) pairedOn(conn *connRow, url string) bool {
	for _, u := range p.relaysOf(conn) {
		if u == url {
			return true
		}
	}
	return false
}
