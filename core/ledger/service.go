// Package ledger moves money: invoices into wallets, payments out of them,
// internal settlement between wallets of the instance, and the node's
// settlements and payment outcomes. Every balance change is one database
// transaction of conditional updates; every state change is single-winner,
// so retries and replayed node events never move money twice.
package ledger

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// Config bounds what the ledger accepts.
type Config struct {
	// MaxInvoiceMsat caps invoice amounts. Default 10 BTC.
	MaxInvoiceMsat int64
	// DefaultExpiry is the expiry of an invoice that names none. Default 12h.
	DefaultExpiry time.Duration
	// MaxExpiry caps invoice expiry. Default 30 days.
	MaxExpiry time.Duration
	// PayTimeout bounds one external payment attempt. Default 60s.
	PayTimeout time.Duration
	// FeeLimitPercent and MinFeeLimitMsat give the fee cap of external
	// payments: max(FeeLimitPercent% of the amount, MinFeeLimitMsat).
	// Defaults 1 and 5000.
	FeeLimitPercent int64
	MinFeeLimitMsat int64
	// ReconnectMax caps the wait between attempts to reach the node after
	// its streams broke (it starts at a second and doubles). Default 1m.
	ReconnectMax time.Duration
	// ReconcileEvery is how often the stream consumer reconciles pending
	// invoices and payments even while the streams are healthy. Default 5m.
	ReconcileEvery time.Duration
	// LeaderPoll is how often a replica that does not consume the node's
	// streams tries to take over. Default 5s.
	LeaderPoll time.Duration
	// KeysendOperator is the user whose wallet takes the keysends the
	// node receives that name no wallet of the instance (record 696969,
	// keysendreceive.go); the wallet is made when it is missing. Default
	// DefaultOperator, the admin.
	KeysendOperator string
	// Metrics, when set, counts the payments and invoices that reach a
	// final status here, where their events are published (metrics.go).
	Metrics *metrics.Ledger
}

func (c *Config) defaults() {
	if c.MaxInvoiceMsat <= 0 {
		c.MaxInvoiceMsat = 10 * 100_000_000 * 1000
	}
	if c.DefaultExpiry <= 0 {
		c.DefaultExpiry = 12 * time.Hour
	}
	if c.MaxExpiry <= 0 {
		c.MaxExpiry = 30 * 24 * time.Hour
	}
	if c.PayTimeout <= 0 {
		c.PayTimeout = 60 * time.Second
	}
	if c.FeeLimitPercent <= 0 {
		c.FeeLimitPercent = 1
	}
	if c.MinFeeLimitMsat <= 0 {
		c.MinFeeLimitMsat = 5000
	}
	if c.ReconnectMax <= 0 {
		c.ReconnectMax = time.Minute
	}
	if c.ReconcileEvery <= 0 {
		c.ReconcileEvery = 5 * time.Minute
	}
	if c.LeaderPoll <= 0 {
		c.LeaderPoll = 5 * time.Second
	}
	if c.KeysendOperator == "" {
		c.KeysendOperator = DefaultOperator
	}
}

// Service is the ledger.
type Service struct {
	db   *store.DB
	node Node
	bus  *event.Bus
	cfg  Config
	log  *slog.Logger
	// clock is the time's source (now), replaced by tests even while the
	// ledger runs (SetClock).
	clock atomic.Pointer[func() time.Time]
	own   *ownBatcher // PostgreSQL only: payOwn's batches
	// recent are the invoices this process issued last (recent.go).
	recent *recentInvoices
	m      *metrics.Ledger

	resolvers resolvers   // of the inputs that are no BOLT11 invoice
	prices    prices      // the rates of amounts in a currency (fiat.go)
	paying    paying      // the time spent paying inside the instance (paying.go)
	watches   holdWatches // the hold invoices watched at the node (holdwatch.go)
	// finishers are the Resolved.Finish hooks of payments left Pending,
	// by payment id: run when the payment settles in this process.
	finishers sync.Map
}

// New returns the ledger over db and node; events go to bus (which may be nil).
func New(db *store.DB, node Node, bus *event.Bus, cfg Config, log *slog.Logger) *Service {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: db, node: node, bus: bus, cfg: cfg, log: log, m: cfg.Metrics, recent: newRecentInvoices(recentInvoicesMax),
		watches: newHoldWatches()}
	s.SetClock(time.Now)
	if db.Dialect == store.Postgres {
		s.own = &ownBatcher{db: db}
	}
	return s
}

// SetClock replaces the clock, for tests; safe while the ledger runs.
func (s *Service) SetClock(now func() time.Time) { s.clock.Store(&now) }

// now is the time by the ledger's clock.
func (s *Service) now() time.Time { return (*s.clock.Load())() }

// Node returns the node the ledger uses.
func (s *Service) Node() Node { return s.node }

func (s *Service) timestamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// publish tells listeners of a change that committed, and counts it.
func (s *Service) publish(ctx context.Context, typ, walletID, id string, data any) {
	now := s.now()
	if s.m != nil {
		s.count(typ, data, now)
	}
	s.bus.Publish(ctx, event.Event{Type: typ, WalletID: walletID, ID: id, At: now.UTC(), Data: data})
}

// newID returns a new record id: a UUIDv7, which begins with the time, so
// that new rows go to the end of the primary key's index instead of to a
// random page of it.
func newID() string { return uuid.Must(uuid.NewV7()).String() }
