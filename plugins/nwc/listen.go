package nwc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"
)

// keysPerSubscription bounds the wallet keys of one subscription's filter:
// a REQ of 1,000 keys is ~67 KB, under what common relays take in one
// message (strfry 128 KiB, khatru 500 KB). Up to 999 connections, one
// subscription listens for all; each further thousand adds one.
const keysPerSubscription = 1000

// keyring is the wallet keys the service listens for: the shared service
// key first, then the connections' own keys, oldest first.
type keyring struct {
	mu    sync.RWMutex
	keys  []string
	set   map[string]bool
	live  map[string]bool  // the keys of live connections
	info  map[string]int64 // a live key's info event's date
	ready bool             // read once: changes are announced from then on
}

// listens reports whether pub is a wallet key of the service.
func (pl *pool) listens(pub string) bool {
	pl.ring.mu.RLock()
	defer pl.ring.mu.RUnlock()
	return pl.ring.set[pub]
}

// chunks are the keys split into the subscriptions' filters.
func (pl *pool) chunks() [][]string {
	pl.ring.mu.RLock()
	defer pl.ring.mu.RUnlock()
	keys := pl.ring.keys
	if len(keys) == 0 {
		keys = []string{pl.p.ServicePubkey()}
	}
	var out [][]string
	for len(keys) > 0 {
		n := min(len(keys), keysPerSubscription)
		out = append(out, keys[:n:n])
		keys = keys[n:]
	}
	return out
}

// follow brings the subscriptions and info events up to the connections
// at once, when this replica serves the relays (a connection just made is
// heard before its creation is answered); another replica's lead follows
// within Resync.
func (pl *pool) follow(ctx context.Context) {
	if !pl.running.Load() {
		return
	}
	if err := pl.sync(ctx, true); err != nil && ctx.Err() == nil {
		pl.p.log.WarnContext(ctx, "nwc: following the connections", "err", err)
	}
}

// resync follows the connections every Resync until ctx ends.
func (pl *pool) resync(ctx context.Context) {
	t := time.NewTicker(pl.p.cfg.Resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := pl.sync(ctx, false); err != nil && ctx.Err() == nil {
			pl.p.log.WarnContext(ctx, "nwc: following the connections", "err", err)
		}
	}
}

// sync reads the wallet keys, renews the subscriptions whose keys changed
// (waiting for the relays' EOSE when wait), and publishes the info event
// of each connection made or whose methods changed, and the deletion of
// each revoked, since the last sync.
func (pl *pool) sync(ctx context.Context, wait bool) error {
	pl.syncMu.Lock()
	defer pl.syncMu.Unlock()
	rows, err := pl.p.listened(ctx)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(rows)+1)
	keys = append(keys, pl.p.ServicePubkey())
	set, live := make(map[string]bool, len(rows)+1), make(map[string]bool, len(rows))
	info := make(map[string]int64, len(rows))
	set[keys[0]] = true
	for i := range rows {
		w := *rows[i].WalletPubkey
		keys, set[w] = append(keys, w), true
		if rows[i].RevokedAt == nil {
			live[w], info[w] = true, rows[i].infoTime()
		}
	}
	ring := &pl.ring
	ring.mu.Lock()
	before, beforeInfo, ready := ring.live, ring.info, ring.ready
	ring.keys, ring.set, ring.live, ring.info, ring.ready = keys, set, live, info, true
	ring.mu.Unlock()
	for _, r := range pl.relays {
		if err := r.subscribe(ctx, wait); err != nil && ctx.Err() == nil {
			pl.p.log.InfoContext(ctx, "nwc: renewing a subscription", "relay", r.url, "err", err)
		}
	}
	if !ready {
		return nil // each relay's session announces them all
	}
	for i := range rows {
		w := *rows[i].WalletPubkey
		if live[w] != before[w] || (live[w] && info[w] != beforeInfo[w]) {
			pl.p.announceChange(ctx, &rows[i])
		}
	}
	return nil
}

// subscriptionID names the subscription of chunk i.
func subscriptionID(i int) string {
	if i == 0 {
		return subscription
	}
	return fmt.Sprintf("%s-%d", subscription, i)
}

// subscribe sends, on the relay's live connection, the subscriptions
// whose keys differ from those it sent there, and closes the surplus;
// when wait, it waits for their EOSE (within the timeout).
func (r *relay) subscribe(ctx context.Context, wait bool) error {
	r.subMu.Lock()
	defer r.subMu.Unlock()
	r.mu.Lock()
	c := r.live
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	if r.sentOn != c {
		r.sent, r.sentOn = map[string]string{}, c
	}
	since := gonostr.Timestamp(r.p.cfg.Now().Add(-5 * time.Minute).Unix())
	chunks := r.pool.chunks()
	var waits []chan struct{}
	for i, keys := range chunks {
		id, joined := subscriptionID(i), strings.Join(keys, ",")
		if r.sent[id] == joined {
			continue
		}
		filter := gonostr.Filter{Kinds: []int{kindRequest}, Tags: gonostr.TagMap{"p": keys}, Since: &since}
		if wait {
			waits = append(waits, r.awaitEOSE(id))
		}
		if err := r.send(ctx, c, []any{"REQ", id, filter}); err != nil {
			return err
		}
		r.sent[id] = joined
	}
	wanted := map[string]bool{}
	for i := range chunks {
		wanted[subscriptionID(i)] = true
	}
	for id := range r.sent {
		if wanted[id] {
			continue
		}
		if err := r.send(ctx, c, []any{"CLOSE", id}); err != nil {
			return err
		}
		delete(r.sent, id)
	}
	timeout := time.After(r.p.cfg.Timeout)
	for _, w := range waits {
		select {
		case <-w:
		case <-timeout:
			return fmt.Errorf("no EOSE from the relay in time")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (r *relay) send(ctx context.Context, c *websocket.Conn, msg []any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding a subscription: %w", err)
	}
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("subscribing: %w", err)
	}
	return nil
}

// awaitEOSE is closed when the relay next sends the EOSE of id.
func (r *relay) awaitEOSE(id string) chan struct{} {
	ch := make(chan struct{})
	r.mu.Lock()
	r.eose[id] = append(r.eose[id], ch)
	r.mu.Unlock()
	return ch
}

// eosed wakes the waiters of id's EOSE.
func (r *relay) eosed(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range r.eose[id] {
		close(ch)
	}
	delete(r.eose, id)
}

// addressee is the wallet key of the service a request is addressed to
// (its p tag), "" for none.
func (p *Plugin) addressee(ev *gonostr.Event) string {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "p" && (t[1] == p.ServicePubkey() || p.relays.listens(t[1])) {
			return t[1]
		}
	}
	return ""
}
