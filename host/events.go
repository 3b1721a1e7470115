package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/outbox"
)

// eventBatch is how many events a plugin's worker reads at a time.
const eventBatch = 64

// Pinner is a Loader that wants the event workers of its plugins on
// threads of its own: Pin is called first on each such worker's goroutine,
// may lock it to its OS thread for good (host/wasm lowers that thread's
// priority, so that plugin code never competes with payments), and returns
// the context the worker's deliveries run under.
type Pinner interface {
	Pin(ctx context.Context) context.Context
}

// Run delivers the outbox's events to the plugins until ctx ends, on one
// replica at a time (the one that leads the "plugins" consumer; another
// takes over when it dies). Each plugin has its own worker and durable
// cursor ("plugin:<name>"): it gets, one at a time and in order, every
// event of its wallet and subscribed types written while it is enabled and
// granted read:transaction, at least once across crashes and restarts. A
// slow or crashing plugin falls behind and catches up from its cursor: it
// never delays a payment or another plugin, and loses nothing. The worker
// of a WebAssembly plugin is pinned if the Loader is a Pinner.
func (r *Registry) Run(ctx context.Context, box *outbox.Outbox) {
	box.Lead(ctx, "plugins", func(ctx context.Context) { r.deliver(ctx, box) })
}

// pluginRescan is how often the leader looks for plugins whose addition
// it was not told of.
const pluginRescan = 5 * time.Second

// deliver runs a worker per plugin until ctx ends; none for a built-in,
// whose events its Lead reads (RunBuiltins): its worker would hold a
// cursor and deliver nothing.
func (r *Registry) deliver(ctx context.Context, box *outbox.Outbox) {
	var wg sync.WaitGroup
	defer wg.Wait()
	pin, _ := r.loader.(Pinner)
	started := map[*Plugin]bool{}
	start := func(p *Plugin) {
		if started[p] || p.Builtin {
			return
		}
		started[p] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			wctx := ctx
			if pin != nil {
				wctx = pin.Pin(ctx)
			}
			r.work(wctx, box, p)
		}()
	}
	rescan := time.NewTicker(pluginRescan)
	defer rescan.Stop()
	for {
		for _, p := range r.snapshot() {
			start(p)
		}
		select {
		case <-ctx.Done():
			return
		case p := <-r.added:
			start(p)
		case <-rescan.C:
		}
	}
}

// work delivers the plugin's events one at a time, after its cursor, until
// ctx ends or the plugin is removed.
func (r *Registry) work(ctx context.Context, box *outbox.Outbox, p *Plugin) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.gone:
			cancel()
		case <-ctx.Done():
		}
	}()
	cur := r.cursor(ctx, box, p)
	if cur == nil {
		return
	}
	defer func() {
		if err := cur.Save(context.WithoutCancel(ctx)); err != nil {
			r.log.WarnContext(ctx, "saving a plugin's event cursor", "plugin", p.Name, "err", err)
		}
	}()
	timers := newTimerSet(r.rows.db, p)
	for {
		nextTimer := r.fireTimers(ctx, p, timers)
		f, ok := eventFilter(p)
		// Off while p can be given no event: it lags behind none.
		cur.SetRunning(ok)
		if !ok {
			if !r.skip(ctx, box, cur, p, nextTimer) {
				return
			}
			continue
		}
		// The filter is taken again after each wait of at most
		// eventPoll, as the plugin's grant and state may change.
		wait, stop := context.WithTimeout(ctx, pollFor(nextTimer))
		evs, err := cur.Next(wait, f, eventBatch)
		stop()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if wait.Err() != nil {
				continue
			}
			r.log.WarnContext(ctx, "reading events for a plugin", "plugin", p.Name, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		for _, e := range evs {
			if ctx.Err() != nil {
				return
			}
			r.deliverOne(ctx, p, e)
			if err := cur.Done(ctx, e.ID); err != nil {
				r.log.WarnContext(ctx, "saving a plugin's event cursor", "plugin", p.Name, "err", err)
			}
		}
	}
}

// eventPoll bounds a worker's wait for its plugin's next events, after
// which it reads the plugin's grant and state again.
const eventPoll = time.Second

// pollFor is how long a worker waits for events when its plugin's next
// timer is due at next (zero: it has none): eventPoll, or less.
func pollFor(next time.Time) time.Duration {
	if next.IsZero() {
		return eventPoll
	}
	return min(eventPoll, max(time.Until(next), 10*time.Millisecond))
}

// eventFilter is what p's worker reads of the outbox: the events of the
// wallet p is bound to, or of every wallet when it is granted events:all,
// of the types it subscribes to, and of its own invoices alone when its
// manifest says event_tags "own". ok is false while p can be given no
// event at all (deliverOne would drop each): it is a built-in (its Lead
// reads its events), bound to no wallet without events:all, subscribes to
// nothing or is not enabled. Workers that read every event of every
// wallet only to drop them halved internal payments (issue 38).
func eventFilter(p *Plugin) (f outbox.Filter, ok bool) {
	g := p.Grant()
	all := g.Has(EventsAll)
	if p.Builtin || (g.WalletID == "" && !all) || len(p.Manifest.Events) == 0 || p.State() != Enabled {
		return outbox.Nothing, false
	}
	f = outbox.Filter{WalletID: g.WalletID, Types: p.Manifest.Events}
	if all {
		f.WalletID = ""
	}
	if p.Manifest.EventTags == "own" {
		f.TagPlugin = p.Name
	}
	return f, true
}

// skip moves p's cursor to the outbox's head without reading a record,
// as p can be given none of the events up to it, then waits for the head
// to move (eventPoll at most, or until its next timer). p is asked again after the head is read:
// an event up to the head was written before that, so p, which could take
// none then, would have dropped it. It reports false when ctx ended.
func (r *Registry) skip(ctx context.Context, box *outbox.Outbox, cur *outbox.Cursor, p *Plugin, nextTimer time.Time) bool {
	head, changed := box.Head()
	if _, ok := eventFilter(p); ok {
		return true // enabled meanwhile: its events are read from the cursor
	}
	if err := cur.Skip(ctx, head); err != nil && ctx.Err() == nil {
		r.log.WarnContext(ctx, "saving a plugin's event cursor", "plugin", p.Name, "err", err)
	}
	poll := time.NewTimer(pollFor(nextTimer))
	defer poll.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-changed:
	case <-poll.C:
	}
	return true
}

// cursor reads p's cursor, trying again while the database fails; nil
// when ctx ends first.
func (r *Registry) cursor(ctx context.Context, box *outbox.Outbox, p *Plugin) *outbox.Cursor {
	for wait := time.Second; ; wait = min(2*wait, time.Minute) {
		cur, err := box.Cursor(ctx, "plugin:"+p.Name)
		if err == nil {
			return cur
		}
		if ctx.Err() != nil {
			return nil
		}
		r.log.WarnContext(ctx, "reading a plugin's event cursor", "plugin", p.Name, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// deliverOne hands e to p if p is enabled, bound to e's wallet, subscribed
// to its type and granted read:transaction.
func (r *Registry) deliverOne(ctx context.Context, p *Plugin, e outbox.Event) {
	g := p.Grant()
	if !p.Manifest.Subscribes(e.Type) || (g.WalletID != e.WalletID && !g.Has(EventsAll)) || p.State() != Enabled {
		return
	}
	if r.api.allow(ctx, p, need{scope: auth.ReadTransaction, what: "event " + e.Type}, e.WalletID) != nil {
		return
	}
	payload, err := EncodeEvent(e.Legacy())
	if err != nil {
		r.log.ErrorContext(ctx, "encoding event", "type", e.Type, "id", e.ID, "err", err)
		return
	}
	err = r.Deliver(ctx, p, payload)
	switch {
	case errors.Is(err, ErrUnavailable):
		p.dropped.Add(1)
		p.Log("warn", fmt.Sprintf("event missed, the plugin was not running: %s %s", e.Type, e.SubjectID))
	case err != nil && !IsFault(err):
		p.Log("warn", "event handler: "+err.Error())
	}
}

// EncodeEvent encodes an event as ABI hearth_v1 delivers it: a 12-byte
// header (the lengths of the type, wallet id and id, one byte each; a zero
// byte; the time in Unix nanoseconds, int64 little-endian), those three
// strings, then the JSON record. A plugin reads it without scanning bytes
// or decoding JSON, and decodes the record only when it needs it.
func EncodeEvent(e event.Event) ([]byte, error) {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("encoding event %s: %w", e.ID, err)
	}
	for _, f := range []string{e.Type, e.WalletID, e.ID} {
		if len(f) > 255 {
			return nil, fmt.Errorf("encoding event: field of %d bytes", len(f))
		}
	}
	b := make([]byte, eventHeader, eventHeader+len(e.Type)+len(e.WalletID)+len(e.ID)+len(data))
	b[0], b[1], b[2] = byte(len(e.Type)), byte(len(e.WalletID)), byte(len(e.ID))
	binary.LittleEndian.PutUint64(b[4:], uint64(e.At.UnixNano()))
	b = append(b, e.Type...)
	b = append(b, e.WalletID...)
	b = append(b, e.ID...)
	return append(b, data...), nil
}

// eventHeader is the fixed part of an event payload.
const eventHeader = 12

// Deliver runs the plugin's event handler on one encoded event, now.
func (r *Registry) Deliver(ctx context.Context, p *Plugin, payload []byte) error {
	run, ok := p.running()
	if !ok {
		return ErrUnavailable
	}
	err := run.Event(ctx, payload)
	r.outcome(ctx, p, err)
	if err == nil {
		p.delivered.Add(1)
	}
	return err
}
