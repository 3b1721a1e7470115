package main

import (
	"context"
	"log/slog"
	"sync"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/withdraw"
)

// eventsHost runs the outbox (its head) and the live stream.
type eventsHost struct {
	box    *outbox.Outbox
	hub    *outbox.Hub
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startEvents opens the outbox, woken by the ledger's bus after each
// commit, and runs it and its stream until stop; on a real node, also the
// withdrawal from node of the invoices settled inside the instance (the
// embedded node's invoices live in the database: nothing to withdraw).
func startEvents(ctx context.Context, cfg config.Config, db *store.DB, bus *event.Bus, node withdraw.Canceller, log *slog.Logger) (*eventsHost, error) {
	box, err := outbox.New(ctx, db, outbox.Config{Wake: bus, Log: log})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &eventsHost{box: box, hub: outbox.NewHub(box), cancel: cancel}
	h.wg.Go(func() { box.Run(ctx) }) //nolint:errcheck // ends with ctx
	h.wg.Go(func() { h.hub.Run(ctx) })
	if cfg.Node.Backend != "embedded" {
		h.wg.Go(func() { withdraw.Run(ctx, box, node, withdraw.Config{Log: log}) })
	}
	return h, nil
}

func (h *eventsHost) stop() {
	h.hub.Close()
	h.cancel()
	h.wg.Wait()
}
