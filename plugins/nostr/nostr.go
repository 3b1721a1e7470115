package nostr

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/contract"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/lib/nostrkey"
)

// Config tunes the plugin. The zero value takes every default.
type Config struct {
	// DefaultRelays receive every receipt besides the request's relays,
	// and are the relays of NIP-05 answers.
	DefaultRelays []string
	// MaxRelays caps the relays of one request that get its receipt (the
	// first ones; the rest are ignored). Default 20.
	MaxRelays int
	// Timeout bounds one publication: connecting, sending, and waiting
	// for the relay's OK. Default 10s.
	Timeout time.Duration
	// RetryWindow is how long a receipt is retried on a relay after the
	// payment; then it is given up there. Default 72h.
	RetryWindow time.Duration
	// FirstRetry is the wait after the first failure; each further failure
	// doubles it, up to MaxBackoff, plus up to 20 % of jitter. Defaults
	// 10s and 1h.
	FirstRetry time.Duration
	MaxBackoff time.Duration
	// Poll is how often the sender looks for due publications when
	// nothing woke it. Default 1s.
	Poll time.Duration
	// Parallel bounds the publications in flight. Default 16.
	Parallel int
	// AllowPrivate accepts relays on private and loopback hosts
	// (plugins.allow_private_hosts); the outbound client must agree.
	AllowPrivate bool
}

func (c *Config) defaults() {
	if c.MaxRelays <= 0 {
		c.MaxRelays = 20
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.RetryWindow <= 0 {
		c.RetryWindow = 72 * time.Hour
	}
	if c.FirstRetry <= 0 {
		c.FirstRetry = 10 * time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = time.Hour
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Parallel <= 0 {
		c.Parallel = 16
	}
}

// Validate checks the default relays.
func (c Config) Validate() error {
	for _, r := range c.DefaultRelays {
		if _, ok := relayURL(r); !ok {
			return fmt.Errorf("nostr.default_relays: %q is not a ws:// or wss:// URL", r)
		}
	}
	return nil
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own tables.
	DB *store.DB
	// Outbound dials the relays: the host's guarded client.
	Outbound *host.Outbound
	// Names is the NIP-05 directory the Lightning Address plugin provides
	// through the registry (host.Registry.NostrNames), asked at each
	// call; nil, or nil answered: no names.
	Names  func() contract.Names
	Config Config
	Log    *slog.Logger
	// Relays, when set, counts the receipts' publications by outcome.
	Relays *metrics.Relays
}

// Plugin is the Nostr plugin.
type Plugin struct {
	db    *store.DB
	host  *host.Caller
	out   *host.Outbound
	names func() contract.Names
	cfg   Config
	log   *slog.Logger
	// receipts counts the publications of receipts; nil with metrics off.
	receipts *metrics.RelayKind

	key nostrkey.Key // the server's key: its secret never logged, never answered
}

// New returns the plugin. Start loads (or makes) its key.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	var relays []string
	for _, r := range d.Config.DefaultRelays {
		if u, ok := relayURL(r); ok {
			relays = append(relays, u)
		}
	}
	d.Config.DefaultRelays = relays
	return &Plugin{db: d.DB, out: d.Outbound, names: d.Names, cfg: d.Config, log: d.Log.With("plugin", Name),
		receipts: d.Relays.Of(metrics.RelayZapReceipt)}
}

// Name is the plugin's name.
const Name = "nostr"

// Manifest describes the plugin. It needs no scope: it reads no wallet
// through the host API, only the outbox's events and its own tables.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "Nostr: NIP-05 names of Lightning Addresses, and zaps (NIP-57) with receipts published to relays.",
		Scopes: []string{host.EventsAll, host.HTTPAny, host.WellKnownPrefix + "nostr.json", host.ServeAPI,
			host.ProvidesPrefix + contract.Zaps, host.ProvidesPrefix + contract.NostrSigner, host.UsesPrefix + contract.NostrNames}}
}

// Builtin returns the plugin as the registry takes it.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes(), Lead: p.lead}
}

// Bind hands the plugin its host API (the registry's For of it): the
// receipts are queued on the host's sender through it.
func (p *Plugin) Bind(c *host.Caller) { p.host = c }

// Start loads the server's key, generating it at the first start (every
// replica reads the one that was stored first).
func (p *Plugin) Start(ctx context.Context) error { return p.key.Load(ctx, p.db, "nostr_keys") }

// NostrPubkey is the server's public key (hex): it signs every receipt.
func (p *Plugin) NostrPubkey() string { return p.key.Pubkey() }

func (p *Plugin) secretKey() string { return p.key.Secret() }

// lead turns settled zap invoices into receipts, after the cursor, and
// publishes them until ctx ends.
func (p *Plugin) lead(ctx context.Context, events *host.Events) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.send(ctx)
	}()
	p.consume(ctx, events)
	<-done
}

var _ contract.Zapper = (*Plugin)(nil)
