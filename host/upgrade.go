package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"golang.org/x/mod/semver"

	"github.com/hearthwallet/hearth/core/fault"
)

// ErrNotNewer refuses an update to a version that is not newer than the
// one installed.
var ErrNotNewer = fault.New(fault.Conflict, "plugin_not_newer", "This version is not newer than the one installed")

// Newer reports whether version a is newer than b (semantic versions).
func Newer(a, b string) bool { return semver.Compare("v"+a, "v"+b) > 0 }

// Update replaces an installed WebAssembly plugin with a newer version of
// it (manifest and module, pinned by sha256 as at install). The plugin
// keeps its keys, timers, sends and configuration (its new defaults
// added). It keeps its grant and state only when the new version asks for
// no scope the old one did not, and its configuration still holds;
// otherwise it is left installed, not enabled, with the reason as its
// error, for the admin to enable again. Every replica follows (Sync: the
// module's hash changed).
func (r *Registry) Update(ctx context.Context, manifest, wasm []byte, pin string) (*Info, error) {
	m, got, err := r.checkModule(manifest, wasm, pin)
	if err != nil {
		return nil, err
	}
	r.life.Lock()
	defer r.life.Unlock()
	old, err := r.Get(m.Name)
	if err != nil {
		return nil, err
	}
	if old.Builtin {
		return nil, ErrBuiltin
	}
	if !Newer(m.Version, old.Manifest.Version) {
		return nil, ErrNotNewer.Reasonf("%s %s is installed; %s is not newer", m.Name, old.Manifest.Version, m.Version)
	}
	if err := r.loader.Check(ctx, wasm); err != nil {
		return nil, ErrInvalid.Reasonf("%s", err.Error())
	}
	row, err := r.updatedRow(old, m, got)
	if err != nil {
		return nil, err
	}
	if err := r.rows.replace(ctx, row, wasm); err != nil {
		return nil, err
	}
	r.drop(ctx, old)
	p, ok := r.fromRow(ctx, *row)
	if !ok {
		return nil, ErrInvalid.Reasonf("the new manifest does not load")
	}
	r.add(p)
	if p.state == Enabled {
		if err := r.start(ctx, p); err != nil {
			r.setFailed(ctx, p, err.Error())
		}
	}
	r.log.InfoContext(ctx, "plugin updated", "plugin", m.Name, "from", old.Manifest.Version, "to", m.Version, "state", p.State())
	p.Log("info", "updated from "+old.Manifest.Version+" to "+m.Version)
	info := p.Info()
	return &info, nil
}

// updatedRow is old's row for manifest m and module sum: the grant and
// state kept when m asks for nothing more and the configuration holds.
func (r *Registry) updatedRow(old *Plugin, m *Manifest, sum string) (*pluginRow, error) {
	canon, _ := json.Marshal(m)
	now := time.Now().UTC()
	g := old.Grant()
	state := old.State()
	if state == Failed {
		state = Disabled // the new code may not fail: the admin enables it
	}
	var reason *string
	more := slices.DeleteFunc(slices.Clone(m.Scopes), func(s string) bool { return slices.Contains(old.Manifest.Scopes, s) })
	cfg, err := ValidateConfig(m.Config, old.Config())
	switch {
	case len(more) > 0:
		why := fmt.Sprintf("version %s asks for more (%s): enable it again to grant what it needs", m.Version, strings.Join(more, " "))
		reason, state, g = &why, Installed, Grant{}
	case err != nil:
		why := fmt.Sprintf("version %s: %v: configure it and enable it again", m.Version, err)
		reason, state = &why, Installed
		cfg = []byte(old.Config())
	}
	var wallet *string
	if g.WalletID != "" {
		wallet = &g.WalletID
	}
	// What it no longer declares, it is no longer granted.
	granted := slices.DeleteFunc(g.Names(), func(s string) bool { return !slices.Contains(m.Scopes, s) })
	return &pluginRow{Name: m.Name, Version: m.Version, Manifest: string(canon), SHA256: sum, State: string(state),
		Granted: strings.Join(granted, " "), WalletID: wallet, Config: string(cfg), Error: reason,
		CreatedAt: old.created, UpdatedAt: &now}, nil
}

// replace writes row over its plugin's row and the module over its code,
// in one transaction.
func (r rows) replace(ctx context.Context, row *pluginRow, wasm []byte) error {
	err := r.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewUpdate().Model(row).WherePK().ExcludeColumn("created_at").Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewUpdate().Model(&codeRow{Name: row.Name, Wasm: wasm}).WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("updating plugin %s: %w", row.Name, err)
	}
	return nil
}
