package lnurl

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/hearthwallet/hearth/contract"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/host"
)

// Config is the plugin's configuration (the [lnurl] section, and the
// instance's domain and public_url). The zero value takes every default.
type Config struct {
	// Domain is the part after @ of the addresses (config domain).
	Domain string
	// PublicURL is the base of every URL handed to LNURL wallets
	// (config public_url): callbacks and verify URLs.
	PublicURL string
	// MinSendableMsat and MaxSendableMsat bound what an address receives
	// at once. Defaults 1000 (1 sat) and 100 000 000 000 (1 BTC).
	MinSendableMsat int64
	MaxSendableMsat int64
	// MinSendable and MaxSendable, when set, bound it in a currency too
	// ("0.50 USD"), converted at each payRequest and callback (limits.go).
	MinSendable, MaxSendable string
	// CommentAllowed is the longest comment a payer may send (LUD-12), in
	// characters; 0 takes the default 255, negative allows none.
	CommentAllowed int
	// Reserved are usernames nobody may register (422). Default: admin,
	// administrator, root, hearth, support, info, postmaster, webmaster,
	// hostmaster, abuse, security, noreply, no-reply.
	Reserved []string
	// RatePerMinute and RateBurst limit the public LNURL endpoints per
	// client address. Defaults 120 and 60.
	RatePerMinute int
	RateBurst     int
	// AllowPrivate lets the client reach http:// and private hosts
	// (plugins.allow_private_hosts; tests).
	AllowPrivate bool
}

// domainRE is what may follow the @ of an address.
var domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$`)

var defaultReserved = []string{"admin", "administrator", "root", "hearth", "support", "info", "postmaster",
	"webmaster", "hostmaster", "abuse", "security", "noreply", "no-reply"}

func (c *Config) defaults() {
	if c.Domain == "" {
		c.Domain = "localhost:3000"
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://localhost:3000"
	}
	c.Domain = strings.ToLower(c.Domain)
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.MinSendableMsat <= 0 {
		c.MinSendableMsat = 1000
	}
	if c.MaxSendableMsat <= 0 {
		c.MaxSendableMsat = 100_000_000_000
	}
	switch {
	case c.CommentAllowed == 0:
		c.CommentAllowed = 255
	case c.CommentAllowed < 0:
		c.CommentAllowed = 0
	}
	if c.Reserved == nil {
		c.Reserved = defaultReserved
	}
	if c.RatePerMinute <= 0 {
		c.RatePerMinute = 120
	}
	if c.RateBurst <= 0 {
		c.RateBurst = 60
	}
}

// Validate checks what would otherwise fail late.
func (c Config) Validate() error {
	c.defaults()
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
		return fmt.Errorf("public_url %q is not an http(s) URL without a query", c.PublicURL)
	}
	if !domainRE.MatchString(c.Domain) {
		return fmt.Errorf("domain %q is not a host name (with an optional port): the part after @ of Lightning Addresses", c.Domain)
	}
	if c.MinSendableMsat > c.MaxSendableMsat {
		return fmt.Errorf("lnurl.min_sendable_msat %d is over max_sendable_msat %d", c.MinSendableMsat, c.MaxSendableMsat)
	}
	for key, limit := range map[string]string{"min_sendable": c.MinSendable, "max_sendable": c.MaxSendable} {
		if _, _, err := parseLimit(limit); limit != "" && err != nil {
			return fmt.Errorf("lnurl.%s: %w", key, err)
		}
	}
	return nil
}

// Deps build the plugin.
type Deps struct {
	// DB holds the plugin's own table.
	DB *store.DB
	// Outbound reaches outside LNURL servers: the host's guarded client.
	Outbound *host.Outbound
	// Decoder decodes outside servers' invoices (the node).
	Decoder Decoder
	// WalletExists checks the wallet_id of an admin's registration; nil
	// accepts any.
	WalletExists func(ctx context.Context, id string) error
	// Zapper is the zap checker the Nostr plugin provides through the
	// registry (host.Registry.Zapper), asked at each call; nil, or nil
	// answered: no zaps.
	Zapper func() contract.Zapper
	Config Config
	Log    *slog.Logger
}

// Plugin is the LNURL plugin.
type Plugin struct {
	db     *store.DB
	client *Client
	exists func(ctx context.Context, id string) error
	cfg    Config
	log    *slog.Logger
	host   *host.Caller // set by Bind, before the server serves
	zapper func() contract.Zapper
}

// New returns the plugin.
func New(d Deps) *Plugin {
	d.Config.defaults()
	if d.Log == nil {
		d.Log = slog.Default()
	}
	return &Plugin{db: d.DB, client: NewClient(d.Outbound, d.Decoder, d.Config.AllowPrivate), exists: d.WalletExists,
		zapper: d.Zapper, cfg: d.Config, log: d.Log.With("plugin", Name)}
}

// Name is the plugin's name.
const Name = "lnurl"

// TagField is the field of the invoice records that shows the address an
// invoice was made for (the plugin tags its invoices with the address's
// id): the field the records had before plugins tagged invoices.
const TagField = "ln_address_id"

// Manifest describes the plugin: it makes invoices in the wallets of
// addresses (write:transaction, receive only: a built-in is bound to no
// wallet to pay from) and reads them back for LUD-21 (read:transaction);
// it reads the keysend address of the wallets of the addresses that allow
// it (keysend:read) for /.well-known/keysend.
func Manifest() *host.Manifest {
	return &host.Manifest{Name: Name, Version: "1.0.0", ABI: host.ABIVersion,
		Description: "Lightning Addresses and LNURL-pay: receive at username@domain, pay any Lightning Address or LNURL.",
		Scopes: []string{auth.WriteTransaction.String(), auth.ReadTransaction.String(),
			host.ReceiveAny, host.ReadAny, host.PresentWallets, host.PresentInvoices, host.LedgerResolver, host.HTTPAny, host.RatesRead,
			host.WellKnownPrefix + "lnurlp", host.WellKnownPrefix + "keysend", host.KeysendRead, host.ServeAPI, host.ProvidesPrefix + contract.LightningAddress,
			host.ProvidesPrefix + contract.NostrNames, host.UsesPrefix + contract.Zaps}}
}

// Builtin returns the plugin as the registry takes it.
func (p *Plugin) Builtin() host.Builtin {
	return host.Builtin{Manifest: Manifest(), Routes: p.routes(), PresentWallets: p.presentWallets, TagField: TagField}
}

// Bind gives the plugin the host API bound to it (after the registry took
// it), through which it makes and reads invoices.
func (p *Plugin) Bind(c *host.Caller) { p.host = c }

// SetZapper has the callback take zap requests (NIP-57) for addresses
// that allow Nostr, validated and answered by z, whatever Deps.Zapper
// says: for tests that wire the two plugins by hand.
func (p *Plugin) SetZapper(z contract.Zapper) { p.zapper = func() contract.Zapper { return z } }

// zaps is the Zapper now, or nil.
func (p *Plugin) zaps() contract.Zapper {
	if p.zapper == nil {
		return nil
	}
	return p.zapper()
}

// Client returns the LNURL-pay client: the host's AddressResolver for
// WebAssembly plugins' ln_address call.
func (p *Plugin) Client() *Client { return p.client }

// Register adds the plugin's payment-input resolver to the ledger.
func (p *Plugin) Register(ctx context.Context) error { return p.host.AddResolver(ctx, p) }

var (
	_ ledger.Resolver = (*Plugin)(nil)
	_ contract.Names  = (*Plugin)(nil)
)
