package webhooks

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Config tunes delivery. The zero value takes every default.
type Config struct {
	// RetryWindow is how long a delivery is retried after its event was
	// queued; then it is given up and the webhook's queue moves on.
	// Default 72h (never less than 24h in a server: core/config).
	RetryWindow time.Duration
	// DisableAfter disables a webhook that has had no successful delivery
	// for this long while it failed. Default 5 days.
	DisableAfter time.Duration
	// FirstRetry is the wait after the first failure; each further failure
	// doubles it, up to MaxBackoff, plus up to 20 % of jitter. Default 10s.
	FirstRetry time.Duration
	// MaxBackoff caps the wait between two attempts. Default 1h.
	MaxBackoff time.Duration
	// MaxPerWallet bounds the webhooks of one wallet. Default 20.
	MaxPerWallet int
	// AllowPrivate accepts http:// URLs of private and loopback hosts, and
	// private addresses at all (plugins.allow_private_hosts). The outbound
	// client must agree.
	AllowPrivate bool
}

func (c *Config) defaults() {
	if c.RetryWindow <= 0 {
		c.RetryWindow = 72 * time.Hour
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = 5 * 24 * time.Hour
	}
	if c.FirstRetry <= 0 {
		c.FirstRetry = 10 * time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = time.Hour
	}
	if c.MaxPerWallet <= 0 {
		c.MaxPerWallet = 20
	}
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own tables.
	DB *store.DB
	// Host is the host API bound to the plugin: each webhook is an event
	// stream of the host's sender.
	Host *host.Caller
	// Outbound sends the deliveries: the host's guarded client, built
	// for webhooks (its timeout and response cap are theirs), which the
	// streams' policy names.
	Outbound *host.Outbound
	// WalletExists checks the wallet_id of an admin's webhook; nil
	// accepts any.
	WalletExists func(ctx context.Context, id string) error
	// EventTypes are the event types a webhook may ask for (the ledger's
	// and the plugins'); nil takes the ledger's alone.
	EventTypes func() []string
	Config     Config
	Log        *slog.Logger
	// Metrics, when set, counts the attempts by outcome (NewMetrics).
	Metrics *Metrics
}

// Plugin is the webhooks plugin.
type Plugin struct {
	db      *store.DB
	host    *host.Caller
	out     *host.Outbound
	exists  func(ctx context.Context, id string) error
	types   func() []string
	cfg     Config
	log     *slog.Logger
	resolve func(ctx context.Context, host string) ([]string, error) // DNS, for http:// URLs
	metrics *Metrics
}

// New returns the plugin.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	p := &Plugin{db: d.DB, host: d.Host, out: d.Outbound, exists: d.WalletExists, types: d.EventTypes, cfg: d.Config,
		log: d.Log.With("plugin", Name), resolve: lookupHost, metrics: d.Metrics}
	p.host.SetStreamPolicy(host.StreamPolicy{RetryWindow: p.cfg.RetryWindow, DisableAfter: p.cfg.DisableAfter,
		FirstRetry: p.cfg.FirstRetry, MaxBackoff: p.cfg.MaxBackoff, Outbound: p.out, OnAttempt: p.metrics.Attempted})
	return p
}

// Name is the plugin's name.
const Name = "webhooks"

// Manifest describes the plugin.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "Signed webhooks: a wallet's events POSTed to its owner's endpoints, in order, retried with backoff.",
		Scopes:      []string{host.HTTPAny, host.ServeAPI}}
}

// Builtin returns the plugin as the registry takes it: its routes. The
// host's sender delivers its webhooks (streams), on one replica at a time.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes()}
}
