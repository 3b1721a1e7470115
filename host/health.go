package host

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A built-in may have a health check (a node backend's: reachable and
// synced). The admin's plugin list runs every check before it answers,
// at most healthTimeout each, all at once, and shows the outcome.

// healthTimeout bounds one plugin's health check.
const healthTimeout = 3 * time.Second

// SetHealth gives plugin name the health check check.
func (r *Registry) SetHealth(name string, check func(ctx context.Context) error) error {
	p, err := r.Get(name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.healthCheck = check
	p.mu.Unlock()
	return nil
}

// CheckHealth runs every plugin's health check, concurrently, and keeps
// each outcome for Info: "ok", or the check's error.
func (r *Registry) CheckHealth(ctx context.Context) {
	var wg sync.WaitGroup
	for _, p := range r.snapshot() {
		p.mu.Lock()
		check := p.healthCheck
		p.mu.Unlock()
		if check == nil {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, healthTimeout)
			defer cancel()
			outcome := "ok"
			if err := check(ctx); err != nil {
				outcome = err.Error()
			}
			p.mu.Lock()
			p.health = outcome
			p.mu.Unlock()
		})
	}
	wg.Wait()
}

// RegisterNode adds the built-in that is the ledger's Lightning node: its
// manifest must declare node:backend, the capability no other plugin may
// hold; ping, when set, is its health check.
func (r *Registry) RegisterNode(m *Manifest, ping func(ctx context.Context) error) (*Plugin, error) {
	if !slices.Contains(m.Scopes, NodeBackend) {
		return nil, fmt.Errorf("registering node %s: its manifest must declare %s", m.Name, NodeBackend)
	}
	p, err := r.RegisterBuiltin(m, nil, "")
	if err != nil {
		return nil, err
	}
	if ping != nil {
		p.mu.Lock()
		p.healthCheck = ping
		p.mu.Unlock()
	}
	return p, nil
}
