package ledgertest

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/withdraw"
)

// LedgerConfig reconnects quickly, so tests wait seconds, not minutes.
var LedgerConfig = ledger.Config{PayTimeout: 30 * time.Second, ReconnectMax: time.Second, LeaderPoll: 200 * time.Millisecond}

// Start runs a new instance over b's database and node, as a restarted
// Hearth would: the ledger following the node (b.Led from now on), the
// outbox, and, when w is set, the withdrawal of internally settled
// invoices from the node (core/withdraw) with w, as hearth serve runs
// them, logging to log (nil: the default). It returns what stops it.
func (b *Books) Start(node ledger.Node, w *withdraw.Config, log *slog.Logger) (stop func()) {
	b.T.Helper()
	bus := event.NewBus()
	b.Led = ledger.New(b.DB, node, bus, LedgerConfig, log)
	led := b.Led
	ctx, cancel := context.WithCancel(context.Background())
	box, err := outbox.New(ctx, b.DB, outbox.Config{Wake: bus, Log: log})
	if err != nil {
		cancel()
		b.T.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { led.Run(ctx) }) //nolint:errcheck // ends with ctx
	wg.Go(func() { box.Run(ctx) }) //nolint:errcheck // ends with ctx
	if w != nil {
		cfg := *w
		if cfg.Log == nil {
			cfg.Log = log
		}
		wg.Go(func() { withdraw.Run(ctx, box, node, led, cfg) })
	}
	return func() { cancel(); wg.Wait() }
}
