// Package ledger moves money: invoices into wallets, payments out of them,
// internal settlement between wallets of the instance, and the node's
// settlements and payment outcomes. Every balance change is one database
// transaction of conditional updates; every state change is single-winner,
// so retries and replayed node events never move money twice.
package ledger

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
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
}

// Service is the ledger.
type Service struct {
	db   *store.DB
	node Node
	bus  *event.Bus
	cfg  Config
	log  *slog.Logger
	now  func() time.Time
}

// New returns the ledger over db and node; events go to bus (which may be nil).
func New(db *store.DB, node Node, bus *event.Bus, cfg Config, log *slog.Logger) *Service {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	return &Service{db: db, node: node, bus: bus, cfg: cfg, log: log, now: time.Now}
}

// SetClock replaces the clock, for tests.
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Node returns the node the ledger uses.
func (s *Service) Node() Node { return s.node }

func (s *Service) timestamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Run reconciles pending invoices and payments with the node, then applies
// the node's invoice settlements until ctx ends; after a broken subscription
// it waits, reconciles again and resubscribes.
func (s *Service) Run(ctx context.Context) error {
	backoff := time.Second
	for {
		if err := s.Reconcile(ctx); err != nil {
			s.log.WarnContext(ctx, "reconciling with the node", "err", err)
		}
		ch, err := s.node.SubscribeInvoices(ctx)
		if err == nil {
			backoff = time.Second
			if done := s.Consume(ctx, ch); done {
				return nil
			}
		} else {
			s.log.WarnContext(ctx, "subscribing to invoices", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, time.Minute)
	}
}

// Consume applies the node's settlements from ch until ch closes (false)
// or ctx ends (true). Run uses it; so does a one-shot command that
// subscribed itself.
func (s *Service) Consume(ctx context.Context, ch <-chan InvoiceSettlement) bool {
	for {
		select {
		case <-ctx.Done():
			return true
		case st, ok := <-ch:
			if !ok {
				return false
			}
			applied, err := s.SettleInvoice(ctx, st)
			if err == nil && !applied && st.Done != nil {
				err = ErrInvoicePaid
			}
			if err != nil {
				s.log.WarnContext(ctx, "applying invoice settlement", "payment_hash", st.PaymentHash, "err", err)
			}
			if st.Done != nil {
				st.Done <- err
			}
		}
	}
}

func (s *Service) publish(ctx context.Context, typ, walletID, id string, data any) {
	s.bus.Publish(ctx, event.Event{Type: typ, WalletID: walletID, ID: id, At: s.now().UTC(), Data: data})
}
