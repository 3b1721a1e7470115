package host

import (
	"context"
	"slices"
	"time"

	"github.com/hearthwallet/hearth/core/store"
)

// Replicas sharing a PostgreSQL database share its plugins table, and each
// runs the plugins itself. What the admin does on one replica (install,
// enable, configure, disable, remove) and a plugin failed on one are
// written to the table; a trigger then notifies every replica (migration
// 20261122000008_plugins_watch), and each brings its registry in line with
// the table (Sync). SQLite is opened by one process: nothing to follow.

// syncTimeout bounds one Sync.
const syncTimeout = time.Minute

// follow starts following the plugins table, once Load has read it.
func (r *Registry) follow() {
	if r.watch != nil || r.rows.db.Dialect != store.Postgres {
		return
	}
	r.following.Add(1)
	go r.syncLoop()
	r.watch = r.rows.db.Watch(store.PluginsTopic, func() {
		select {
		case r.kick <- struct{}{}:
		default: // a sync is due already, and reads the table after this change
		}
	})
}

// unfollow stops following the table.
func (r *Registry) unfollow() {
	r.life.Lock()
	w := r.watch
	r.watch = nil
	r.life.Unlock()
	if w == nil {
		return
	}
	w.Close()
	close(r.quit)
	r.following.Wait()
}

func (r *Registry) syncLoop() {
	defer r.following.Done()
	for {
		select {
		case <-r.quit:
			return
		case <-r.kick:
			ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
			if err := r.Sync(ctx); err != nil {
				r.log.Error("following the plugins of other replicas", "err", err)
			}
			cancel()
		}
	}
}

// Sync brings the registry in line with the plugins table: it adds the
// plugins installed elsewhere, removes those removed, applies config, and
// starts, restarts (a new grant) or stops a plugin whose state or grant
// differs. A plugin that is already as the table says is left running.
func (r *Registry) Sync(ctx context.Context) error {
	r.life.Lock()
	defer r.life.Unlock()
	all, err := r.rows.all(ctx)
	if err != nil {
		return err
	}
	stored := make(map[string]bool, len(all))
	for _, row := range all {
		stored[row.Name] = true
		p, err := r.Get(row.Name)
		if err == nil && !p.Builtin && (p.SHA256 != row.SHA256 || p.Manifest.Version != row.Version) {
			// Updated elsewhere, or removed and installed again, with
			// other code or another manifest.
			r.drop(ctx, p)
			err = ErrNotFound
		}
		if err != nil {
			if p, ok := r.fromRow(ctx, row); ok {
				r.add(p)
				r.syncState(ctx, p, row, true)
			}
			continue
		}
		if p.Builtin {
			continue
		}
		cfg := []byte(row.Config)
		if !slices.Equal(cfg, p.Config()) {
			p.config.Store(&cfg)
		}
		grant := r.rowGrant(ctx, row, p.Manifest)
		changed := !slices.Equal(grant.Names(), p.Grant().Names()) || grant.WalletID != p.Grant().WalletID
		p.grant.Store(grant)
		r.syncState(ctx, p, row, changed)
	}
	for _, p := range r.snapshot() {
		if !p.Builtin && !stored[p.Name] {
			r.drop(ctx, p)
			r.log.InfoContext(ctx, "plugin removed on another replica", "plugin", p.Name)
		}
	}
	return nil
}

// syncState gives p the state of row: started if it is enabled there and
// not here, or its grant changed; stopped if it is not enabled there.
func (r *Registry) syncState(ctx context.Context, p *Plugin, row pluginRow, grantChanged bool) {
	want := State(row.State)
	reason := ""
	if row.Error != nil {
		reason = *row.Error
	}
	if want == Enabled {
		if p.State() == Enabled && !grantChanged {
			return
		}
		r.stop(ctx, p)
		if err := r.start(ctx, p); err != nil {
			// This replica alone could not start it: failed here, and the
			// table keeps what the admin chose.
			p.mu.Lock()
			p.state, p.lastError = Failed, err.Error()
			p.mu.Unlock()
			r.log.ErrorContext(ctx, "starting a plugin enabled on another replica", "plugin", p.Name, "err", err)
			return
		}
		p.Log("info", "enabled on another replica")
		return
	}
	if p.State() == want {
		return
	}
	r.stop(ctx, p)
	p.mu.Lock()
	p.state = want
	if want == Failed {
		p.lastError = reason
	}
	p.mu.Unlock()
	p.Log("info", string(want)+" on another replica")
}

// drop stops and forgets a removed plugin.
func (r *Registry) drop(ctx context.Context, p *Plugin) {
	r.stop(ctx, p)
	if !p.Builtin && r.loader != nil {
		r.loader.Unload(ctx, p)
	}
	r.mu.Lock()
	delete(r.plugins, p.Name)
	r.mu.Unlock()
	p.mu.Lock()
	p.state = Disabled
	p.mu.Unlock()
	p.goneMu.Do(func() { close(p.gone) })
}
