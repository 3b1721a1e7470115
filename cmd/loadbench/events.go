package main

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/core/outbox"
)

// eventStream is what hearth serve runs beside the API (app.Start): the outbox, woken by the ledger after each commit, and its
// live stream; with -stream, plus one client of the admin's stream of
// every wallet's events, as an open dashboard would be, so that the figures
// include what reading and streaming every event costs too.
type eventStream struct {
	box    *outbox.Outbox
	hub    *outbox.Hub
	ctx    context.Context
	cancel context.CancelFunc
	reader func()       // stops the outbox's reader; nil while it is stopped
	got    atomic.Int64 // events the client read
	last   atomic.Int64 // the id of the last one
}

// startEvents runs the outbox box, woken by the ledger's bus, and its
// hub.
func startEvents(ctx context.Context, box *outbox.Outbox, hub *outbox.Hub) *eventStream {
	ctx, cancel := context.WithCancel(ctx)
	e := &eventStream{box: box, hub: hub, ctx: ctx, cancel: cancel}
	go e.hub.Run(ctx)
	e.setReader(true)
	return e
}

// setReader starts or stops the outbox's reader, which keeps its head
// current (-outbox-rounds turns it on and off between rounds).
func (e *eventStream) setReader(on bool) {
	switch {
	case on && e.reader == nil:
		ctx, stop := context.WithCancel(e.ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.box.Run(ctx) //nolint:errcheck // ends with ctx
		}()
		e.reader = func() { stop(); <-done }
	case !on && e.reader != nil:
		e.reader()
		e.reader = nil
	}
}

// follow reads GET /v1/events at addr with token until the stream ends,
// counting the events.
func (e *eventStream) follow(ctx context.Context, addr, token string) error {
	return load.ReadStream(ctx, "http://"+addr+"/v1/events", "Bearer "+token, func(line []byte) {
		if id, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
			n, _ := strconv.ParseInt(string(id), 10, 64)
			e.last.Store(n)
			e.got.Add(1)
		}
	})
}

// caughtUp waits until the client has read up to the outbox's head, and
// returns how many events it read.
func (e *eventStream) caughtUp(ctx context.Context) (int64, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		head, changed := e.box.Head()
		if e.last.Load() >= head && head > 0 {
			return e.got.Load(), nil
		}
		if time.Now().After(deadline) {
			return e.got.Load(), errors.New("the event stream did not catch up with the outbox within a minute")
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return e.got.Load(), ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (e *eventStream) stop() {
	e.hub.Close()
	e.setReader(false)
	e.cancel()
}
