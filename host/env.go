package host

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// Environment is what the application hands the registry to build the
// built-ins' environments from: the whole of each part. A built-in never
// sees it: it gets an Env, which hands out a part only when the built-in's
// manifest declares the capability that covers it.
type Environment struct {
	Config config.Config
	DB     *store.DB
	Node   ledger.Node
	// Metrics is the server's metrics registry; nil when metrics are off.
	Metrics *metrics.Metrics
	// WalletExists checks that a wallet exists.
	WalletExists func(ctx context.Context, id string) error
	Log          *slog.Logger
}

// Env is what a built-in gets to build itself (Descriptor.Build): the host
// API bound to it, its settings, a logger naming it, the metrics registry,
// its own tables, and the powers its manifest declares, each handed out
// once its capability is checked: outbound clients built from its grant
// (http:any, http:outbound:<host>), what the node says of itself
// (node:info), the node's chain wallet without its spending half
// (node:chain), services (provides:<name>, uses:<name>). No built-in is
// handed the node, the database or an unchecked client otherwise.
type Env struct {
	// Host is the host API bound to the built-in.
	Host     *Caller
	Settings Settings
	// Log is the server's logger.
	Log *slog.Logger
	// Metrics counts into the server's registry; nil when metrics are off
	// (its methods take a nil receiver).
	Metrics *metrics.Metrics

	reg    *Registry
	plugin *Plugin
	src    Environment

	mu   sync.Mutex
	used []string
}

// envFor is the environment of the registered built-in p.
func (r *Registry) envFor(p *Plugin, d Descriptor, src Environment) *Env {
	log := src.Log
	if log == nil {
		log = slog.Default()
	}
	return &Env{Host: r.api.For(p), Settings: SettingsOf(src.Config, d.Section), Log: log,
		Metrics: src.Metrics, reg: r, plugin: p, src: src}
}

// NewTestEnv is the environment of the registered built-in p over src
// without a descriptor: what a built-in's tests build it in.
func (r *Registry) NewTestEnv(p *Plugin, s Settings, src Environment) *Env {
	env := r.envFor(p, Descriptor{}, src)
	env.Settings = s
	return env
}

// need checks that the built-in's manifest declares capability name, and
// notes that it took it.
func (e *Env) need(name string) error {
	if !slices.Contains(e.plugin.Manifest.Scopes, name) {
		return fmt.Errorf("built-in %s takes %s from its environment without declaring it", e.plugin.Name, name)
	}
	e.took(name)
	return nil
}

func (e *Env) took(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !slices.Contains(e.used, name) {
		e.used = append(e.used, name)
	}
}

// Used lists what the built-in took, sorted.
func (e *Env) Used() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]string(nil), e.used...)
	sort.Strings(out)
	return out
}

// Tables is the database, for the built-in's own tables (made by its own
// migration): it reaches into no other.
func (e *Env) Tables() *store.DB {
	e.took("tables")
	return e.src.DB
}

// WalletExists checks that wallet id exists (an admin's request naming a
// wallet).
func (e *Env) WalletExists(ctx context.Context, id string) error {
	if e.src.WalletExists == nil {
		return nil
	}
	return e.src.WalletExists(ctx, id)
}

// Outbound returns an outbound client for the built-in: the host's guard
// (private addresses only when the operator allows them) with o's timeout
// and response cap, allowing at each request the hosts its grant holds
// (http:any, http:outbound:<host>). It needs one of those declared.
func (e *Env) Outbound(o OutboundConfig) (*Outbound, error) {
	var took []string
	for _, s := range e.plugin.Manifest.Scopes {
		if s == HTTPAny || strings.HasPrefix(s, OutboundPrefix) {
			took = append(took, s)
		}
	}
	if len(took) == 0 {
		return nil, fmt.Errorf("built-in %s asks for an outbound client without declaring %s or %s<host>", e.plugin.Name, HTTPAny, OutboundPrefix)
	}
	for _, s := range took {
		e.took(s)
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	o.AllowPrivate = e.Settings.AllowPrivateHosts
	reg, name := e.reg, e.plugin.Name
	o.Grant = func(host string) bool { return reg.AllowsHost(name, host) }
	return NewOutbound(o), nil
}

// NodeInfo returns what the node says of itself, asked at each call
// (node:info).
func (e *Env) NodeInfo() (func(ctx context.Context) (ledger.NodeInfo, error), error) {
	if err := e.need(NodeInfo); err != nil {
		return nil, err
	}
	if e.src.Node == nil {
		return nil, fmt.Errorf("built-in %s: no node", e.plugin.Name)
	}
	return e.src.Node.Info, nil
}

// Decode decodes a BOLT11 invoice of the node's network: a pure function,
// no power.
func (e *Env) Decode(bolt11 string) (*ledger.DecodedInvoice, error) {
	if e.src.Node == nil {
		return nil, fmt.Errorf("no node to decode invoices with")
	}
	return e.src.Node.Decode(bolt11)
}

// Chain returns the node's on-chain wallet for reading (node:chain), or
// nil when the node has none.
func (e *Env) Chain() (*Chain, error) {
	if err := e.need(NodeChain); err != nil {
		return nil, err
	}
	w := ledger.OnchainOf(e.src.Node)
	if w == nil {
		return nil, nil
	}
	_, spends := e.src.Node.(ledger.ChainSpender)
	return &Chain{w: w, spends: spends}, nil
}

// Provide offers s to the plugins that use it (provides:<s.Name>).
func (e *Env) Provide(s Service) error {
	if err := e.need(ProvidesPrefix + s.Name); err != nil {
		return err
	}
	return e.reg.Provide(e.plugin.Name, s)
}

// Chain is the node's on-chain wallet as a built-in reads it: new
// addresses, its transactions and the chain's stream; never a spend (the
// ledger spends).
type Chain struct {
	w      ledger.ChainWallet
	spends bool
}

// NewAddress returns a new address of the node's wallet.
func (c *Chain) NewAddress(ctx context.Context, typ ledger.AddressType) (string, error) {
	return c.w.NewAddress(ctx, typ)
}

// ChainTransactions returns the chain's tip and the wallet's transactions
// confirmed at fromHeight or above, and the unconfirmed ones.
func (c *Chain) ChainTransactions(ctx context.Context, fromHeight int64) (int64, []ledger.ChainTx, error) {
	return c.w.ChainTransactions(ctx, fromHeight)
}

// SubscribeChain streams the wallet's transactions and new blocks.
func (c *Chain) SubscribeChain(ctx context.Context) (<-chan ledger.ChainEvent, error) {
	return c.w.SubscribeChain(ctx)
}

// Spends reports whether the node also spends on chain for the ledger:
// then there are spends to reconcile.
func (c *Chain) Spends() bool { return c.spends }
