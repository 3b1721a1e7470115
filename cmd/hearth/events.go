package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
)

// eventsHost runs the outbox (its head) and the live stream.
type eventsHost struct {
	box    *outbox.Outbox
	hub    *outbox.Hub
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startEvents opens the outbox, woken by the ledger's bus after each
// commit, and runs it and its stream until stop.
func startEvents(ctx context.Context, cfg config.Config, db *store.DB, bus *event.Bus, log *slog.Logger) (*eventsHost, error) {
	box, err := outbox.New(ctx, db, outbox.Config{Wake: bus, Log: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &eventsHost{box: box, hub: outbox.NewHub(box), cancel: cancel}
	h.wg.Add(2)
	go func() { defer h.wg.Done(); box.Run(ctx) }() //nolint:errcheck // ends with ctx
	go func() { defer h.wg.Done(); h.hub.Run(ctx) }()
	return h, nil
}

func (h *eventsHost) stop() {
	h.hub.Close()
	h.cancel()
	h.wg.Wait()
}
