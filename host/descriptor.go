package host

import (
	"context"
	"fmt"

	"github.com/hearthwallet/hearth/core/config"
)

// Descriptor is a built-in plugin as its folder exports it: its manifest,
// its section of the configuration, and how it builds itself from its
// environment. The application lists descriptors; the registry builds each
// (AddFeature) with the host API already bound to it.
type Descriptor struct {
	Manifest *Manifest
	// Section is the key of its section of the configuration ("" for
	// none), and Defaults makes a new value of it holding its defaults (a
	// pointer; Defaults of a value): the configuration decodes the file
	// and the environment into it.
	Section  string
	Defaults func() any
	// Validate, when set, checks its settings once loaded.
	Validate func(s Settings) error
	// Build builds the built-in from env: its routes, its background work,
	// and what it provides others (Env.Provide).
	Build func(ctx context.Context, env *Env) (Builtin, error)
}

// Defaults returns the Defaults of a descriptor whose section's defaults
// are def.
func Defaults[T any](def T) func() any {
	return func() any {
		v := new(T)
		*v = def
		return v
	}
}

// ConfigSection is d's section of the configuration, holding its
// defaults, for the configuration's loader; false for none.
func (d Descriptor) ConfigSection() (config.Section, bool) {
	if d.Section == "" || d.Defaults == nil {
		return config.Section{}, false
	}
	return config.Section{Key: d.Section, Value: d.Defaults()}, true
}

// Settings are what a built-in reads of the configuration: the instance's
// public facts and its own section.
type Settings struct {
	// Domain is the part after @ of the instance's addresses.
	Domain string
	// PublicURL is the instance's externally reachable base URL.
	PublicURL string
	// BitcoinAddressType is the default type of on-chain addresses.
	BitcoinAddressType string
	// AllowPrivateHosts lets outbound requests reach private addresses.
	AllowPrivateHosts bool
	section           any
}

// SettingsOf are the settings of cfg for the built-in whose section is at
// key ("" for none).
func SettingsOf(cfg config.Config, key string) Settings {
	s := Settings{Domain: cfg.Domain, PublicURL: cfg.PublicURL, BitcoinAddressType: cfg.BitcoinAddressType,
		AllowPrivateHosts: cfg.Plugins.AllowPrivateHosts}
	if key != "" {
		s.section = cfg.Builtin(key)
	}
	return s
}

// SectionOf is the built-in's section as loaded, or def when the
// configuration was built without it.
func SectionOf[T any](s Settings, def T) T {
	if v, ok := s.section.(*T); ok {
		return *v
	}
	return def
}

// WithSection returns s holding v (a pointer) as its section: what a test
// builds a built-in with.
func (s Settings) WithSection(v any) Settings {
	s.section = v
	return s
}

// AddFeature builds the built-in d describes in an environment of src and
// registers it: enabled, granted what it declares, bound to no wallet. It
// returns the host API bound to it, the one its Build was given. A
// built-in whose Build fails is not registered.
func (r *Registry) AddFeature(ctx context.Context, d Descriptor, src Environment) (*Caller, error) {
	if d.Manifest == nil || d.Build == nil {
		return nil, fmt.Errorf("a built-in's descriptor needs a manifest and a Build")
	}
	p, err := r.RegisterBuiltin(d.Manifest, nil, "")
	if err != nil {
		return nil, fmt.Errorf("built-in %s: %w", d.Manifest.Name, err)
	}
	env := r.envFor(p, d, src)
	b, err := d.Build(ctx, env)
	if err == nil {
		b.Manifest = d.Manifest
		err = r.attach(p, b)
	}
	if err != nil {
		r.unregister(p)
		return nil, fmt.Errorf("built-in %s: %w", d.Manifest.Name, err)
	}
	p.mu.Lock()
	p.powers = mergePowers(p.powers, env.Used())
	p.mu.Unlock()
	return env.Host, nil
}

// unregister forgets a built-in that failed to build, with what it
// provided.
func (r *Registry) unregister(p *Plugin) {
	r.mu.Lock()
	delete(r.plugins, p.Name)
	r.mu.Unlock()
	p.mu.Lock()
	p.state = Disabled
	p.mu.Unlock()
	p.goneMu.Do(func() { close(p.gone) }) // its event worker, if one started, ends
	r.services.mu.Lock()
	for name, ps := range r.services.byName {
		if ps.provider == p.Name {
			delete(r.services.byName, name)
		}
	}
	r.services.mu.Unlock()
}

// Powers lists what the built-in took from its environment when it was
// built (capabilities, and "tables" for its own tables) and the
// capabilities that what it serves and shows takes: what a test compares
// with what its manifest declares.
func (p *Plugin) Powers() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.powers...)
}
