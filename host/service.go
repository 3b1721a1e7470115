package host

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A service is what one plugin offers the others under a name, none
// importing another. The types of its contract live in a package both
// sides import (contract/); the host keeps the provider's value by name
// and hands it to the plugins that declared its use. A plugin declares
// provides:<name> to offer a service and uses:<name> to use one, and the
// host checks both against its grant. A service nobody provides is absent
// and its users do without it: listing one built-in without the other is
// never an error.

// The capabilities of services.
const (
	// ProvidesPrefix starts the capability to offer a service by name.
	ProvidesPrefix = "provides:"
	// UsesPrefix starts the capability to use a service by name.
	UsesPrefix = "uses:"
)

// serviceNameRE is the shape of a service's name.
var serviceNameRE = regexp.MustCompile(`^[a-z][a-z0-9.-]{0,63}$`)

// Service is one service as its provider offers it.
type Service struct {
	// Name is the service's name (lower-case letters, digits, '.', '-').
	Name string
	// Value is what a user of the service gets (Use): a value of the
	// contract's type.
	Value any
	// Call, when set, answers a call of the service in JSON, made for
	// plugin c: what the ABI's host functions that a service answers
	// reach (abinames.go). Its error is the plugin's (a *CallError).
	Call func(ctx context.Context, c *Caller, req []byte) (any, error)
}

// services are the provided services by name.
type services struct {
	mu     sync.RWMutex
	byName map[string]providedService
}

type providedService struct {
	provider string
	s        Service
}

// Provide offers s from the registered plugin provider, which must
// declare provides:<s.Name>. A name has one provider.
func (r *Registry) Provide(provider string, s Service) error {
	if !serviceNameRE.MatchString(s.Name) {
		return fmt.Errorf("service %q: not a service name", s.Name)
	}
	p, err := r.Get(provider)
	if err != nil {
		return fmt.Errorf("providing %s: %w", s.Name, err)
	}
	if !p.Grant().Has(ProvidesPrefix + s.Name) {
		return fmt.Errorf("plugin %s provides %s without the capability %s%s", provider, s.Name, ProvidesPrefix, s.Name)
	}
	r.services.mu.Lock()
	defer r.services.mu.Unlock()
	if r.services.byName == nil {
		r.services.byName = map[string]providedService{}
	}
	if had, ok := r.services.byName[s.Name]; ok && had.provider != provider {
		return fmt.Errorf("service %s is provided by %s already", s.Name, had.provider)
	}
	r.services.byName[s.Name] = providedService{provider: provider, s: s}
	return nil
}

// service returns the service name while its provider is enabled.
func (r *Registry) service(name string) (Service, bool) {
	r.services.mu.RLock()
	ps, ok := r.services.byName[name]
	r.services.mu.RUnlock()
	if !ok {
		return Service{}, false
	}
	if p, err := r.Get(ps.provider); err != nil || p.State() != Enabled {
		return Service{}, false
	}
	return ps.s, true
}

// Provided lists the provided services' names, for the admin.
func (r *Registry) Provided() map[string]string {
	r.services.mu.RLock()
	defer r.services.mu.RUnlock()
	out := make(map[string]string, len(r.services.byName))
	for name, ps := range r.services.byName {
		out[name] = ps.provider
	}
	return out
}

// Use returns, for the plugin of env (which must declare uses:<name>), a
// getter of the service name as T: asked at each call, since a provider
// may be added after its user, it answers false while no enabled provider
// offers a value of type T.
func Use[T any](env *Env, name string) (func() (T, bool), error) {
	if err := env.need(UsesPrefix + name); err != nil {
		return nil, err
	}
	reg, user := env.reg, env.plugin
	return func() (T, bool) {
		var zero T
		if !user.Grant().Has(UsesPrefix + name) {
			return zero, false
		}
		s, ok := reg.service(name)
		if !ok {
			return zero, false
		}
		v, ok := s.Value.(T)
		return v, ok
	}, nil
}

// callService runs the JSON face of service name for c, once need (the
// host function's own rule) allows it.
func (c *Caller) callService(ctx context.Context, fn abiService, req []byte) (any, error) {
	if err := c.allow(ctx, fn.need); err != nil {
		return nil, err
	}
	if fn.capability != "" && !c.p.Grant().Has(fn.capability) {
		return nil, c.api.refuse(ctx, c.p, fn.need.what, "missing capability "+fn.capability)
	}
	var s Service
	ok := false
	if c.api.service != nil {
		s, ok = c.api.service(fn.service)
	}
	if !ok || s.Call == nil {
		return nil, callErrorf("unavailable", "%s is not available: no plugin provides %s", fn.need.what, fn.service)
	}
	return s.Call(ctx, c, req)
}

// isServiceCapability reports whether name is provides:<service> or
// uses:<service>.
func isServiceCapability(name string) bool {
	for _, prefix := range []string{ProvidesPrefix, UsesPrefix} {
		if s, ok := strings.CutPrefix(name, prefix); ok {
			return serviceNameRE.MatchString(s)
		}
	}
	return false
}
