package host

import (
	"context"
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
