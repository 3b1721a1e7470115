package host

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/event"
)

// eventQueue is each plugin's queue of undelivered events.
const eventQueue = 64

// Pinner is a Loader that wants the event workers of its plugins on
// threads of its own: Pin is called first on each such worker's goroutine,
// may lock it to its OS thread for good (host/wasm lowers that thread's
// priority, so that plugin code never competes with payments), and returns
// the context the worker's deliveries run under.
type Pinner interface {
	Pin(ctx context.Context) context.Context
}

// Run delivers events from the bus until ctx ends: each event is encoded
// once and queued to every enabled plugin that subscribes to its type, is
// bound to its wallet and is granted read:transaction. Each plugin has its
// own worker and bounded queue; a full queue drops the event (logged), so a
// slow or crashing plugin never delays a payment or another plugin. The
// worker of a WebAssembly plugin is pinned if the Loader is a Pinner.
func (r *Registry) Run(ctx context.Context, events <-chan event.Event) {
	var wg sync.WaitGroup
	defer wg.Wait()
	pin, _ := r.loader.(Pinner)
	start := func(p *Plugin) {
		if p.worker.CompareAndSwap(false, true) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wctx := ctx
				if pin != nil && !p.Builtin {
					wctx = pin.Pin(ctx)
				}
				r.work(wctx, p)
			}()
		}
	}
	for _, p := range r.snapshot() {
		start(p)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-r.added:
			start(p)
		case e, ok := <-events:
			if !ok {
				return
			}
			r.dispatch(ctx, e)
		}
	}
}

func (r *Registry) dispatch(ctx context.Context, e event.Event) {
	var payload []byte
	for _, p := range r.snapshot() {
		if !p.Manifest.Subscribes(e.Type) || p.Grant().WalletID != e.WalletID || p.State() != Enabled {
			continue
		}
		if r.api.allow(ctx, p, need{scope: auth.ReadTransaction, what: "event " + e.Type}) != nil {
			continue
		}
		if payload == nil {
			var err error
			if payload, err = EncodeEvent(e); err != nil {
				r.log.ErrorContext(ctx, "encoding event", "type", e.Type, "err", err)
				return
			}
		}
		select {
		case p.queue <- payload:
		default:
			n := p.dropped.Add(1)
			// Once a second at most: a plugin kept waiting for its CPU share
			// (or stuck) drops every event of a busy wallet.
			now := time.Now().UnixNano()
			if last := p.droppedLogged.Load(); now-last >= int64(time.Second) && p.droppedLogged.CompareAndSwap(last, now) {
				r.log.WarnContext(ctx, "plugin event dropped: queue full", "plugin", p.Name, "type", e.Type, "id", e.ID, "dropped_total", n)
				p.Log("warn", fmt.Sprintf("event dropped (queue full): %s %s; %d dropped in all", e.Type, e.ID, n))
			}
		}
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

// work delivers the plugin's queued events one at a time.
func (r *Registry) work(ctx context.Context, p *Plugin) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.gone:
			return
		case payload := <-p.queue:
			if err := r.Deliver(ctx, p, payload); err != nil && !IsFault(err) {
				p.Log("warn", "event handler: "+err.Error())
			}
		}
	}
}

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
