package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearthwallet/hearth/core/auth"
)

// Enable grants scopes and a wallet, and starts the plugin. Enabling an
// enabled or failed plugin replaces its grant and restarts it.
//
// The grant is what by may give (see CheckGrantable): each scope declared
// by the plugin, and each permission scope among by's own, so that no
// caller acts through a plugin beyond its own permissions.
func (r *Registry) Enable(ctx context.Context, by *auth.Principal, name string, scopes []string, walletID string) (*Info, error) {
	r.life.Lock()
	defer r.life.Unlock()
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
	if err := CheckGrantable(by, g); err != nil {
		return nil, err
	}
	if walletID != "" {
		if _, err := r.wallets.Get(ctx, walletID); err != nil {
			return nil, ErrInvalid.Reasonf("wallet %s not found", walletID)
		}
	}
	g.WalletID = walletID
	if err := r.checkWellKnown(p, g); err != nil {
		return nil, err
	}
	if err := ConfigComplete(p.Manifest.Config, p.Config()); err != nil {
		return nil, ErrInvalid.Reasonf("configure the plugin first: %s", err.Error())
	}
	r.stop(ctx, p)
	p.grant.Store(&g)
	var wallet *string
	if walletID != "" {
		wallet = &walletID
	}
	if err := r.rows.update(ctx, name, map[string]any{"granted": strings.Join(g.Names(), " "), "wallet_id": wallet}); err != nil {
		return nil, err
	}
	if err := r.start(ctx, p); err != nil {
		r.setFailed(ctx, p, err.Error())
		return nil, ErrInvalid.Reasonf("starting the plugin: %s", err.Error())
	}
	if err := r.rows.update(ctx, name, map[string]any{"state": string(Enabled), "error": nil}); err != nil {
		return nil, err
	}
	r.log.InfoContext(ctx, "plugin enabled", "plugin", name, "granted", g.Names(), "wallet_id", walletID, "by", by.UserID)
	p.Log("info", "enabled with "+strings.Join(g.Names(), " "))
	info := p.Info()
	return &info, nil
}

// start loads the plugin, its code read from the database unless the
// loader still has it compiled, and marks it enabled.
func (r *Registry) start(ctx context.Context, p *Plugin) error {
	if r.loader == nil {
		return fmt.Errorf("no WebAssembly runtime")
	}
	run, err := r.loader.Load(ctx, p, func(ctx context.Context) ([]byte, error) { return r.rows.wasm(ctx, p.Name) })
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
	r.life.Lock()
	defer r.life.Unlock()
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

// Configure applies cfg to the plugin's stored config as updateConfig says
// (a secret left out keeps its value; null or "" unsets a key), checks the
// result against the manifest's schema and stores it; a running plugin
// reads the new values on its next Config call.
func (r *Registry) Configure(ctx context.Context, name string, cfg []byte) (*Info, error) {
	r.life.Lock()
	defer r.life.Unlock()
	p, err := r.Get(name)
	if err != nil {
		return nil, err
	}
	if p.Builtin {
		return nil, ErrBuiltin
	}
	// Applied to the stored config (another replica may have changed it),
	// which stays held until the result is stored.
	norm, err := r.rows.updateConfig(ctx, name, func(stored []byte) ([]byte, error) {
		norm, err := updateConfig(p.Manifest.Config, stored, cfg)
		if err != nil {
			return nil, ErrInvalid.Reasonf("%s", err.Error())
		}
		return norm, nil
	})
	if err != nil {
		return nil, err
	}
	p.config.Store(&norm)
	info := p.Info()
	return &info, nil
}

// Remove stops the plugin and deletes it with its keys.
func (r *Registry) Remove(ctx context.Context, name string) error {
	r.life.Lock()
	defer r.life.Unlock()
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
	r.drop(ctx, p)
	if r.api != nil && r.api.metrics != nil {
		r.api.metrics.Forget(name)
	}
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
