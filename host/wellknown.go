package host

import (
	"slices"

	"github.com/hearthwallet/hearth/core/fault"
)

var (
	errNoRoute     = fault.New(fault.NotFound, "not_found", "No such route")
	errNoWellKnown = fault.New(fault.NotFound, "not_found", "No plugin serves this path")
	// ErrWellKnownTaken is an enable that would grant a /.well-known/ name
	// another enabled plugin serves.
	ErrWellKnownTaken = fault.New(fault.Conflict, "well_known_taken", "Another enabled plugin serves this /.well-known/ name")
)

// WellKnown returns the name of the plugin that serves method and path, a
// path under /.well-known/ at the server's root: the enabled plugin granted
// well-known:<name> for it, if its manifest has a route that matches. (Were
// two enabled at once on two replicas, the first by name serves.)
func (r *Registry) WellKnown(method, path string) (string, error) {
	name, ok := wellKnownName(path)
	if !ok {
		return "", errNoWellKnown
	}
	for _, p := range r.snapshot() {
		if p.State() != Enabled || !slices.Contains(p.Grant().WellKnown, name) {
			continue
		}
		if _, ok := p.Manifest.MatchWellKnown(method, path); ok {
			return p.Name, nil
		}
		return "", errNoWellKnown
	}
	return "", errNoWellKnown
}

// checkWellKnown refuses a grant to p of a /.well-known/ name that another
// enabled plugin serves.
func (r *Registry) checkWellKnown(p *Plugin, g Grant) error {
	for _, name := range g.WellKnown {
		for _, o := range r.snapshot() {
			if o != p && o.State() == Enabled && slices.Contains(o.Grant().WellKnown, name) {
				return ErrWellKnownTaken.Reasonf("/.well-known/%s is served by the plugin %s: disable it first", name, o.Name)
			}
		}
	}
	return nil
}
