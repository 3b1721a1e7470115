package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
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
	return &Registry{api: d.API, loader: d.Loader, rows: rows{db: d.DB}, wallets: d.Wallets, log: d.Log,
		added: make(chan *Plugin, 64), plugins: map[string]*Plugin{}}
}

// API returns the host API.
func (r *Registry) API() *API { return r.api }

// Load reads the installed plugins and starts the enabled ones. A plugin
// that fails to start is marked failed; the others go on.
func (r *Registry) Load(ctx context.Context) error {
	all, err := r.rows.all(ctx)
	if err != nil {
		return err
	}
	for _, row := range all {
		m, err := ParseManifest([]byte(row.Manifest))
		if err != nil {
			r.log.ErrorContext(ctx, "stored plugin manifest is invalid", "plugin", row.Name, "err", err)
			continue
		}
		p := newPlugin(m, false)
		p.SHA256, p.state, p.created = row.SHA256, State(row.State), row.CreatedAt
		if row.Error != nil {
			p.lastError = *row.Error
		}
		g, err := ParseGrant(strings.Fields(row.Granted), m.Scopes)
		if err != nil {
			r.log.ErrorContext(ctx, "stored plugin grant is invalid", "plugin", row.Name, "err", err)
		}
		if row.WalletID != nil {
			g.WalletID = *row.WalletID
		}
		p.grant.Store(&g)
		cfg := []byte(row.Config)
		p.config.Store(&cfg)
		r.add(p)
		if p.state == Enabled {
			if err := r.start(ctx, p, row.Wasm); err != nil {
				r.setFailed(ctx, p, err.Error())
			}
		}
	}
	return nil
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

// Install stores a WebAssembly plugin after checking its sha256 pin, its
// manifest and its code. It starts Installed: nothing runs until Enable.
func (r *Registry) Install(ctx context.Context, manifest, wasm []byte, pin string) (*Info, error) {
	sum := sha256.Sum256(wasm)
	got := hex.EncodeToString(sum[:])
	if !strings.EqualFold(strings.TrimPrefix(pin, "sha256:"), got) {
		return nil, ErrInvalid.Reasonf("sha256 of the module is %s, not the pinned %s", got, pin)
	}
	m, err := ParseManifest(manifest)
	if err != nil {
		return nil, ErrInvalid.Reasonf("%s", err.Error())
	}
	if r.loader == nil {
		return nil, ErrInvalid.Reasonf("this server runs no WebAssembly plugins")
	}
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
	row := &pluginRow{Name: m.Name, Version: m.Version, Manifest: string(canon), SHA256: got, Wasm: wasm,
		State: string(Installed), Config: string(cfg), CreatedAt: now}
	if err := r.rows.insert(ctx, row); err != nil {
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

// Enable grants scopes (a subset of the declared ones) and a wallet, and
// starts the plugin. Enabling an enabled or failed plugin replaces its
// grant and restarts it.
func (r *Registry) Enable(ctx context.Context, name string, scopes []string, walletID string) (*Info, error) {
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if p.Builtin {
		return nil, ErrBuiltin
	}
	g, err := ParseGrant(scopes, p.Manifest.Scopes)
	if err != nil {
		return nil, ErrInvalid.Reasonf("%s", err.Error())
	}
	if walletID != "" {
		if _, err := r.wallets.Get(ctx, walletID); err != nil {
			return nil, ErrInvalid.Reasonf("wallet %s not found", walletID)
		}
	}
	g.WalletID = walletID
	if err := ConfigComplete(p.Manifest.Config, p.Config()); err != nil {
		return nil, ErrInvalid.Reasonf("configure the plugin first: %s", err.Error())
	}
	r.stop(ctx, p)
	p.grant.Store(&g)
	wasm, err := r.rows.wasm(ctx, name)
	if err != nil {
		return nil, err
	}
	var wallet *string
	if walletID != "" {
		wallet = &walletID
	}
	if err := r.rows.update(ctx, name, map[string]any{"granted": strings.Join(g.Names(), " "), "wallet_id": wallet}); err != nil {
		return nil, err
	}
	if err := r.start(ctx, p, wasm); err != nil {
		r.setFailed(ctx, p, err.Error())
		return nil, ErrInvalid.Reasonf("starting the plugin: %s", err.Error())
	}
	if err := r.rows.update(ctx, name, map[string]any{"state": string(Enabled), "error": nil}); err != nil {
		return nil, err
	}
	r.log.InfoContext(ctx, "plugin enabled", "plugin", name, "granted", g.Names(), "wallet_id", walletID)
	p.Log("info", "enabled with "+strings.Join(g.Names(), " "))
	info := p.Info()
	return &info, nil
}

// start loads the plugin's code and marks it enabled.
func (r *Registry) start(ctx context.Context, p *Plugin, wasm []byte) error {
	if r.loader == nil {
		return fmt.Errorf("no WebAssembly runtime")
	}
	run, err := r.loader.Load(ctx, p, wasm)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.runner, p.state, p.faults, p.lastError = run, Enabled, 0, ""
	p.mu.Unlock()
	return nil
}

// stop closes the plugin's runner, if any.
func (r *Registry) stop(ctx context.Context, p *Plugin) {
	p.mu.Lock()
	run := p.runner
	p.runner = nil
	p.mu.Unlock()
	if run != nil {
		if err := run.Close(ctx); err != nil {
			r.log.WarnContext(ctx, "closing plugin", "plugin", p.Name, "err", err)
		}
	}
}

// Disable stops the plugin; it keeps its grant, config and keys.
func (r *Registry) Disable(ctx context.Context, name string) (*Info, error) {
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if p.Builtin {
		return nil, ErrBuiltin
	}
	r.stop(ctx, p)
	p.mu.Lock()
	p.state = Disabled
	p.mu.Unlock()
	if err := r.rows.update(ctx, name, map[string]any{"state": string(Disabled)}); err != nil {
		return nil, err
	}
	r.log.InfoContext(ctx, "plugin disabled", "plugin", name)
	p.Log("info", "disabled")
	info := p.Info()
	return &info, nil
}

// Configure validates cfg against the manifest's schema and stores it; a
// running plugin reads the new values on its next Config call.
func (r *Registry) Configure(ctx context.Context, name string, cfg []byte) (*Info, error) {
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if p.Builtin {
		return nil, ErrBuiltin
	}
	norm, err := ValidateConfig(p.Manifest.Config, cfg)
	if err != nil {
		return nil, ErrInvalid.Reasonf("%s", err.Error())
	}
	if err := r.rows.update(ctx, name, map[string]any{"config": string(norm)}); err != nil {
		return nil, err
	}
	p.config.Store(&norm)
	info := p.Info()
	return &info, nil
}

// Remove stops the plugin and deletes it with its keys.
func (r *Registry) Remove(ctx context.Context, name string) error {
	p, err := r.Get(name)
	if err != nil {
		return err
	}
	if p.Builtin {
		return ErrBuiltin
	}
	r.stop(ctx, p)
	if err := r.rows.delete(ctx, name); err != nil {
		return err
	}
	r.mu.Lock()
	delete(r.plugins, name)
	r.mu.Unlock()
	p.mu.Lock()
	p.state = Disabled
	p.mu.Unlock()
	p.goneMu.Do(func() { close(p.gone) })
	r.log.InfoContext(ctx, "plugin removed", "plugin", name)
	return nil
}

// Logs returns the plugin's last n log lines, oldest first.
func (r *Registry) Logs(name string, n int) ([]LogEntry, error) {
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	return p.logs.last(n), nil
}

// outcome counts a call's result: a fault discards nothing more here (the
// runtime already dropped the instance) but MaxFaults in a row fail the
// plugin; a success resets the count.
func (r *Registry) outcome(ctx context.Context, p *Plugin, err error) {
	if err == nil {
		p.mu.Lock()
		p.faults = 0
		p.mu.Unlock()
		return
	}
	if !IsFault(err) {
		return
	}
	p.Log("error", err.Error())
	r.log.WarnContext(ctx, "plugin fault", "plugin", p.Name, "err", err)
	p.mu.Lock()
	p.faults++
	p.lastError = err.Error()
	fail := p.faults >= MaxFaults && p.state == Enabled
	p.mu.Unlock()
	if fail {
		r.setFailed(ctx, p, fmt.Sprintf("%d faults in a row; last: %v", MaxFaults, err))
	}
}

// setFailed stops the plugin and records why.
func (r *Registry) setFailed(ctx context.Context, p *Plugin, reason string) {
	r.stop(context.WithoutCancel(ctx), p)
	p.mu.Lock()
	p.state, p.lastError = Failed, reason
	p.mu.Unlock()
	r.log.ErrorContext(ctx, "plugin failed; re-enable it once fixed", "plugin", p.Name, "reason", reason)
	p.Log("error", "failed: "+reason)
	if !p.Builtin {
		if err := r.rows.update(context.WithoutCancel(ctx), p.Name, map[string]any{"state": string(Failed), "error": reason}); err != nil {
			r.log.ErrorContext(ctx, "recording plugin failure", "plugin", p.Name, "err", err)
		}
	}
}

// Close stops every plugin.
func (r *Registry) Close(ctx context.Context) {
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
		return false, 0, fault.New(fault.NotFound, "not_found", "No such route")
	}
	if rt.Public {
		return true, 0, nil
	}
	s, _ := auth.ParseScope(rt.Scope)
	return false, s, nil
}
