package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/store"
)

// The errors of plugin management.
var (
	ErrNotFound    = fault.New(fault.NotFound, "plugin_not_found", "Plugin not found")
	ErrExists      = fault.New(fault.Conflict, "plugin_exists", "A plugin with this name is installed")
	ErrInvalid     = fault.New(fault.Unprocessable, "invalid_plugin", "Invalid plugin")
	ErrBuiltin     = fault.New(fault.Unprocessable, "builtin_plugin", "Built-in plugins cannot be changed this way")
	ErrUnavailable = fault.New(fault.Unavailable, "plugin_unavailable", "The plugin is not running")
)

// Checker validates WebAssembly code before it is installed.
type Checker interface {
	Check(ctx context.Context, wasm []byte) error
}

// Registry holds every plugin, built-in or WebAssembly, and runs their
// lifecycle: install, enable with a grant, configure, disable, remove, and
// failed after repeated faults.
type Registry struct {
	api    *API
	loader interface {
		Loader
		Checker
	}
	rows    rows
	wallets Wallets
	log     *slog.Logger
	added   chan *Plugin

	mu      sync.RWMutex
	plugins map[string]*Plugin
	builtin builtins // the built-ins' routes and background work (builtin.go)
	// services are what plugins provide each other (service.go).
	services services
	// catalog reads the plugin index and downloads modules (catalog.go).
	catalog *Catalog

	// life serialises the changes of plugin state: the admin's (Install,
	// Enable, …) and those Sync brings from other replicas.
	life      sync.Mutex
	loaded    bool          // Load ran
	watch     *store.Watch  // set by Load (sync.go)
	kick      chan struct{} // a change to sync
	quit      chan struct{}
	following sync.WaitGroup
}

// RegistryDeps build a registry.
type RegistryDeps struct {
	DB  *store.DB
	API *API
	// Loader runs WebAssembly plugins (host/wasm); nil for built-ins only.
	Loader interface {
		Loader
		Checker
	}
	Wallets Wallets
	Log     *slog.Logger
}

// NewRegistry returns an empty registry; Load reads the installed plugins.
func NewRegistry(d RegistryDeps) *Registry {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	r := &Registry{api: d.API, loader: d.Loader, rows: rows{db: d.DB}, wallets: d.Wallets, log: d.Log,
		added: make(chan *Plugin, 64), plugins: map[string]*Plugin{},
		kick: make(chan struct{}, 1), quit: make(chan struct{})}
	if d.API != nil {
		d.API.service = r.service            // the ABI's service calls ask whoever provides them
		d.API.tagField = r.tagField          // and a tagged invoice the field its plugin shows it under
		d.API.present = r.PresentWallets     // and wallet the built-ins' parts of a wallet
		d.API.eventTypes = r.EventTypes      // and the event types a subscriber may name
		d.API.sender.allowed = r.sendAllowed // and the sender the grant of a send's owner
	}
	return r
}

// API returns the host API.
func (r *Registry) API() *API { return r.api }

// Load reads the installed plugins and starts the enabled ones. A plugin
// that fails to start is marked failed; the others go on. Then the registry
// follows the changes other replicas make to the plugins (see sync.go).
// It loads once: a later call does nothing (a second load would run every
// plugin twice).
func (r *Registry) Load(ctx context.Context) error {
	r.life.Lock()
	defer r.life.Unlock()
	if r.loaded {
		return nil
	}
	all, err := r.rows.all(ctx)
	if err != nil {
		return err
	}
	r.loaded = true
	for _, row := range all {
		p, ok := r.fromRow(ctx, row)
		if !ok {
			continue
		}
		r.add(p)
		if p.state == Enabled {
			if err := r.start(ctx, p); err != nil {
				r.setFailed(ctx, p, err.Error())
			}
		}
	}
	r.follow()
	return nil
}

// fromRow makes the plugin that row stores, not yet started; false (and
// logged) when the stored manifest is invalid.
func (r *Registry) fromRow(ctx context.Context, row pluginRow) (*Plugin, bool) {
	m, err := ParseManifest([]byte(row.Manifest))
	if err != nil {
		r.log.ErrorContext(ctx, "stored plugin manifest is invalid", "plugin", row.Name, "err", err)
		return nil, false
	}
	p := newPlugin(m, false)
	p.SHA256, p.state, p.created = row.SHA256, State(row.State), row.CreatedAt
	if row.Error != nil {
		p.lastError = *row.Error
	}
	p.grant.Store(r.rowGrant(ctx, row, m))
	cfg := []byte(row.Config)
	p.config.Store(&cfg)
	return p, true
}

// rowGrant is the grant that row stores.
func (r *Registry) rowGrant(ctx context.Context, row pluginRow, m *Manifest) *Grant {
	g, err := ParseGrant(strings.Fields(row.Granted), m.Scopes)
	if err != nil {
		r.log.ErrorContext(ctx, "stored plugin grant is invalid", "plugin", row.Name, "err", err)
	}
	if row.WalletID != nil {
		g.WalletID = *row.WalletID
	}
	return &g
}

// RegisterBuiltin adds a built-in plugin: enabled, granted what it
// declares, bound to walletID (may be ""). run may be nil for a built-in
// that serves no events or routes.
func (r *Registry) RegisterBuiltin(m *Manifest, run Runner, walletID string) (*Plugin, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	g, err := ParseGrant(m.Scopes, m.Scopes)
	if err != nil {
		return nil, err
	}
	g.WalletID = walletID
	p := newPlugin(m, true)
	p.grant.Store(&g)
	p.state, p.runner = Enabled, run
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.plugins[m.Name]; ok {
		return nil, ErrExists
	}
	r.plugins[m.Name] = p
	r.notify(p)
	return p, nil
}

func (r *Registry) add(p *Plugin) {
	r.mu.Lock()
	r.plugins[p.Name] = p
	r.mu.Unlock()
	r.notify(p)
}

// notify tells Run about a new plugin, so that it starts its worker.
func (r *Registry) notify(p *Plugin) {
	select {
	case r.added <- p:
	default: // Run rescans every plugin when it starts; a full channel means it is not running yet
	}
}

// Get returns the plugin called name.
func (r *Registry) Get(name string) (*Plugin, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.plugins[name]
	if !ok {
		return nil, ErrNotFound
	}
	return p, nil
}

func (r *Registry) snapshot() []*Plugin {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Plugin, 0, len(r.plugins))
	for _, p := range r.plugins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// List describes every plugin, by name.
func (r *Registry) List() []Info {
	ps := r.snapshot()
	out := make([]Info, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Info())
	}
	return out
}

// EventTypes returns, sorted, the event types a subscriber may name: the
// ledger's (KnownEvents) and those the registered plugins emit.
func (r *Registry) EventTypes() []string {
	types := LedgerEventTypes()
	for _, p := range r.snapshot() {
		types = append(types, p.Manifest.Emits...)
	}
	slices.Sort(types)
	return slices.Compact(types)
}

// checkModule checks a module against its sha256 pin and its manifest
// before anything is stored, and returns the manifest and the hash.
func (r *Registry) checkModule(manifest, wasm []byte, pin string) (*Manifest, string, error) {
	sum := sha256.Sum256(wasm)
	got := hex.EncodeToString(sum[:])
	if !strings.EqualFold(strings.TrimPrefix(pin, "sha256:"), got) {
		return nil, "", ErrInvalid.Reasonf("sha256 of the module is %s, not the pinned %s", got, pin)
	}
	m, err := ParseManifest(manifest)
	if err != nil {
		return nil, "", ErrInvalid.Reasonf("%s", err.Error())
	}
	if err := m.checkSandboxable(); err != nil {
		return nil, "", err
	}
	if r.loader == nil {
		return nil, "", ErrInvalid.Reasonf("this server runs no WebAssembly plugins")
	}
	return m, got, nil
}

// Install stores a WebAssembly plugin after checking its sha256 pin, its
// manifest and its code. It starts Installed: nothing runs until Enable.
func (r *Registry) Install(ctx context.Context, manifest, wasm []byte, pin string) (*Info, error) {
	m, got, err := r.checkModule(manifest, wasm, pin)
	if err != nil {
		return nil, err
	}
	r.life.Lock()
	defer r.life.Unlock()
	if _, err := r.Get(m.Name); err == nil {
		return nil, ErrExists
	}
	if err := r.loader.Check(ctx, wasm); err != nil {
		return nil, ErrInvalid.Reasonf("%s", err.Error())
	}
	canon, _ := json.Marshal(m)
	now := time.Now().UTC()
	cfg, err := ValidateConfig(m.Config, nil)
	if err != nil {
		cfg = []byte("{}") // required keys are set with Configure before Enable
	}
	row := &pluginRow{Name: m.Name, Version: m.Version, Manifest: string(canon), SHA256: got,
		State: string(Installed), Config: string(cfg), CreatedAt: now}
	if err := r.rows.insert(ctx, row, wasm); err != nil {
		return nil, err
	}
	p := newPlugin(m, false)
	p.SHA256, p.created = got, now
	p.config.Store(&cfg)
	r.add(p)
	r.log.InfoContext(ctx, "plugin installed", "plugin", m.Name, "version", m.Version, "sha256", got)
	info := p.Info()
	return &info, nil
}

// Close stops every plugin.
func (r *Registry) Close(ctx context.Context) {
	r.unfollow()
	for _, p := range r.snapshot() {
		r.stop(ctx, p)
	}
}

// RouteAccess says who may call a plugin route: public, or the scope needed.
func (r *Registry) RouteAccess(name, method, path string) (public bool, scope auth.Scope, err error) {
	p, err := r.Get(name)
	if err != nil {
		return false, 0, err
	}
	rt, ok := p.Manifest.Match(method, path)
	if !ok {
		return false, 0, errNoRoute
	}
	if rt.Public {
		return true, 0, nil
	}
	s, _ := auth.ParseScope(rt.Scope)
	return false, s, nil
}

// AllowsHost reports whether the plugin called name is enabled and granted
// outbound HTTP to host (http:any, or http:outbound:<host>): the Grant of
// a built-in's outbound client (OutboundConfig.Grant), asked at each
// request.
func (r *Registry) AllowsHost(name, host string) bool {
	p, err := r.Get(name)
	return err == nil && p.State() == Enabled && p.Grant().allowsHost(host)
}

// sendAllowed says whether plugin owner, enabled, is granted outbound
// HTTP to host: asked before each attempt of its sends, so that a grant
// withdrawn (or the plugin disabled) stops them.
func (r *Registry) sendAllowed(owner, host string) bool {
	p, err := r.Get(owner)
	return err == nil && p.State() == Enabled && p.Grant().allowsHost(host)
}
