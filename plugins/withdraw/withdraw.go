package withdraw

import (
	"context"
	"log/slog"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Name is the plugin's name.
const Name = "withdraw"

// Config is the plugin's configuration.
type Config struct {
	// PublicURL is the instance's externally reachable base URL: the
	// links' URLs are under it.
	PublicURL string
	// MaxVouchers bounds count, the single-use links made at once.
	// Default 100.
	MaxVouchers int
	// RatePerMinute and RateBurst limit the public LNURL endpoints per
	// client address. Defaults 120 and 60.
	RatePerMinute, RateBurst int
	// Retry is how long the lead leaves a pending claim to the process
	// that took it before paying it itself. Default 30s.
	Retry time.Duration
	// Poll is how often the lead looks for claims to pay. Default 1s.
	Poll time.Duration
	// PayLater leaves every claim to the lead, after Retry (tests: a
	// claim pending for as long as they need).
	PayLater bool
	// Now is the clock; default time.Now (tests move it).
	Now func() time.Time
	// AllowPrivate lets a pulled link be http:// on a private address
	// (plugins.allow_private_hosts).
	AllowPrivate bool
}

func (c *Config) defaults() {
	if c.MaxVouchers <= 0 {
		c.MaxVouchers = 100
	}
	if c.RatePerMinute <= 0 {
		c.RatePerMinute = 120
	}
	if c.RateBurst <= 0 {
		c.RateBurst = 60
	}
	if c.Retry <= 0 {
		c.Retry = 30 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Decoder decodes BOLT11 invoices of the node's network.
type Decoder interface {
	Decode(bolt11 string) (*ledger.DecodedInvoice, error)
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own tables.
	DB *store.DB
	// Host is the host API bound to the plugin.
	Host    *host.Caller
	Decoder Decoder
	// Outbound reaches other servers' links: the host's guarded client.
	Outbound *host.Outbound
	// WalletExists checks the wallet_id of an admin's link.
	WalletExists func(ctx context.Context, id string) error
	Config       Config
	Log          *slog.Logger
}

// Plugin is the withdraw plugin.
type Plugin struct {
	db     *store.DB
	host   *host.Caller
	decode Decoder
	out    *host.Outbound
	exists func(ctx context.Context, id string) error
	cfg    Config
	log    *slog.Logger
}

// New returns the plugin.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.WalletExists == nil {
		d.WalletExists = func(context.Context, string) error { return nil }
	}
	return &Plugin{db: d.DB, host: d.Host, decode: d.Decoder, out: d.Outbound, exists: d.WalletExists, cfg: d.Config,
		log: d.Log.With("plugin", Name)}
}

// Manifest describes the plugin: it makes a credential per link for the
// route's caller (caller:act, credential:delegate, write:api_key), pays
// the claims with it (write:transaction, and read:wallet to answer at once
// when the wallet cannot pay), reaches other servers' links to claim them
// (http:any), and serves its routes among the API's; each claim is a
// withdraw.claimed event.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "LNURL-withdraw (LUD-03, LUD-17): links and vouchers that let their holder pull sats from a wallet, within limits.",
		Scopes: []string{auth.ReadWallet.String(), auth.WriteTransaction.String(), auth.WriteAPIKey.String(),
			host.CallerAct, host.CredentialDelegate, host.ServeAPI, host.HTTPAny},
		Emits: []string{Claimed}}
}

// Builtin returns the plugin as the registry takes it: its routes, and
// its lead, which pays the claims their process left.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes(),
		Lead: func(ctx context.Context, _ *host.Events) { p.payLeft(ctx) }}
}

// Descriptor is the plugin as the host builds it (the instance's
// public_url). tune, when set, adjusts its configuration (tests).
func Descriptor(tune func(*Config)) host.Descriptor {
	return host.Descriptor{Manifest: Manifest(),
		Build: func(_ context.Context, env *host.Env) (host.Builtin, error) {
			c := Config{PublicURL: env.Settings.PublicURL, AllowPrivate: env.Settings.AllowPrivateHosts}
			if tune != nil {
				tune(&c)
			}
			out, err := env.Outbound(host.OutboundConfig{Timeout: 10 * time.Second, MaxResponseBytes: 64 << 10})
			if err != nil {
				return host.Builtin{}, err
			}
			p := New(Deps{DB: env.Tables(), Host: env.Host, Decoder: env, Outbound: out, WalletExists: env.WalletExists,
				Config: c, Log: env.Log})
			return p.Builtin(), nil
		}}
}
