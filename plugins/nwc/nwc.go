package nwc

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/lib/nostrkey"
)

// Config tunes the plugin. The zero value takes every default.
type Config struct {
	// Relays are where the plugin listens and publishes; none turns NWC
	// off (connections are refused with 422 nwc_disabled).
	Relays []string
	// AppRelays are the relays apps may name besides Relays
	// ([nwc] follow_app_relays): listened on and published to, for the
	// connections paired on them, in no URI of the server's.
	AppRelays []string
	// Timeout bounds one publication: sending and waiting for the relay's
	// OK. Default 10s.
	Timeout time.Duration
	// RetryWindow is how long a notification is retried on a relay.
	// Default 24h.
	RetryWindow time.Duration
	// FirstRetry is the wait after a failed publication, doubled after
	// each failure up to MaxBackoff. Defaults 2s and 5m.
	FirstRetry time.Duration
	MaxBackoff time.Duration
	// Poll is how often the sender looks for due notifications when
	// nothing woke it. Default 1s.
	Poll time.Duration
	// Resync is how often the replica serving the relays reads the
	// connections' wallet keys, for those made or revoked on another
	// replica. Default twice Poll.
	Resync time.Duration
	// RatePerMinute and Burst bound the requests of one connection.
	// Defaults 120 and 30.
	RatePerMinute, Burst int
	// PayWait bounds how long a pay_invoice answer waits for an external
	// payment still in flight. Default 60s.
	PayWait time.Duration
	// AllowPrivate accepts relays on private and loopback hosts
	// (plugins.allow_private_hosts); the outbound client must agree.
	AllowPrivate bool
	// Now is the clock; nil for time.Now.
	Now func() time.Time
}

func (c *Config) defaults() {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.RetryWindow <= 0 {
		c.RetryWindow = 24 * time.Hour
	}
	if c.FirstRetry <= 0 {
		c.FirstRetry = 2 * time.Second
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 5 * time.Minute
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Resync <= 0 {
		c.Resync = 2 * c.Poll
	}
	if c.RatePerMinute <= 0 {
		c.RatePerMinute = 120
	}
	if c.Burst <= 0 {
		c.Burst = 30
	}
	if c.PayWait <= 0 {
		c.PayWait = 60 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// allRelays are the relays the plugin serves: the server's, then the app
// relays it follows.
func (c Config) allRelays() []string {
	return append(append([]string{}, c.Relays...), c.AppRelays...)
}

// Validate checks the relays and the app relays followed.
func (c Config) Validate() error {
	for _, r := range c.Relays {
		if !isRelayURL(r) {
			return fmt.Errorf("nwc.relays: %q is not a ws:// or wss:// URL", r)
		}
	}
	for _, r := range c.AppRelays {
		if !isRelayURL(r) {
			return fmt.Errorf("nwc.follow_app_relays: %q is not a ws:// or wss:// URL", r)
		}
	}
	return nil
}

func isRelayURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "ws" || u.Scheme == "wss") && u.Host != "" && u.User == nil
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own tables.
	DB *store.DB
	// Outbound dials the relays: the host's guarded client.
	Outbound *host.Outbound
	// NodeInfo describes the node for get_info; nil answers without it.
	NodeInfo func(ctx context.Context) (ledger.NodeInfo, error)
	// Decoder reads the payment hash of lookup_invoice's invoice.
	Decoder Decoder
	// Relays, when set, counts the notifications' publications by outcome.
	Relays *metrics.Relays
	Config Config
	Log    *slog.Logger
}

// Decoder decodes BOLT11 invoices of the node's network.
type Decoder interface {
	Decode(bolt11 string) (*ledger.DecodedInvoice, error)
}

// Plugin is the NWC plugin.
type Plugin struct {
	db       *store.DB
	out      *host.Outbound
	nodeInfo func(ctx context.Context) (ledger.NodeInfo, error)
	decoder  Decoder
	cfg      Config
	log      *slog.Logger
	host     *host.Caller // set by Bind, before the server serves
	limits   *limiter
	relays   *pool
	// published counts the notifications' publications; nil with metrics
	// off.
	published *metrics.RelayKind

	key nostrkey.Key // the service's key: its secret never logged, never answered
}

// Name is the plugin's name.
const Name = "nwc"

// New returns the plugin. Start loads (or makes) its service key.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	p := &Plugin{db: d.DB, out: d.Outbound, nodeInfo: d.NodeInfo, decoder: d.Decoder, cfg: d.Config, log: d.Log.With("plugin", Name),
		published: d.Relays.Of(metrics.RelayNWCNotification)}
	p.limits = newLimiter(d.Config.RatePerMinute, d.Config.Burst, d.Config.Now)
	p.relays = newPool(p)
	return p
}

// Manifest describes the plugin: it acts for its connections' users
// (credential:delegate), within what their methods imply, makes the
// admin's sub-wallets (wallet:create, write:wallet), reads the events of
// every wallet for notifications, and reaches its relays.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "Nostr Wallet Connect (NIP-47): apps pay, make invoices and read a wallet over relays, each connection with its methods, budget and expiry.",
		Scopes: []string{"read:wallet", "write:wallet", "read:transaction", "write:transaction", "read:api_key", "write:api_key",
			host.CallerAct, host.CredentialDelegate, host.WalletCreate, host.EventsAll, host.HTTPAny, host.ServeAPI, host.NodeInfo, host.InvoiceHold}}
}

// Builtin returns the plugin as the registry takes it.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes(), Lead: p.lead}
}

// Bind gives the plugin the host API bound to it.
func (p *Plugin) Bind(c *host.Caller) { p.host = c }

// Start loads the service key, generating it at the first start (every
// replica reads the one that was stored first).
func (p *Plugin) Start(ctx context.Context) error { return p.key.Load(ctx, p.db, "nwc_keys") }

// ServicePubkey is the service's public key (hex): the wallet's identity
// in every connection URI.
func (p *Plugin) ServicePubkey() string { return p.key.Pubkey() }

func (p *Plugin) secretKey() string { return p.key.Secret() }

// lead serves the relays (requests in, answers and the info event out),
// queues notifications from the outbox and publishes them, until ctx ends.
func (p *Plugin) lead(ctx context.Context, events *host.Events) {
	if len(p.cfg.Relays) == 0 {
		<-ctx.Done()
		return
	}
	p.log.InfoContext(ctx, "nwc: this replica serves the relays", "relays", len(p.cfg.Relays), "app_relays", len(p.cfg.AppRelays))
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		p.relays.run(ctx)
	}()
	go func() {
		defer wg.Done()
		p.send(ctx)
	}()
	p.consume(ctx, events)
	wg.Wait()
}

// Connected counts the relays on which the plugin listens now (its
// subscription live): all of them in a healthy server.
func (p *Plugin) Connected() int { return p.relays.connected() }
