package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"

	"github.com/hearthwallet/hearth/core/auth"
)

// Grant is what the admin allowed a plugin: a subset of its declared
// scopes, and the one wallet it acts on.
type Grant struct {
	Scopes    auth.Scopes
	Hosts     []string // from http:outbound:<host>, sorted
	WellKnown []string // from well-known:<name>, sorted
	// Caps are the capabilities without an argument (capability.go) and
	// those of services (provides:<name>, uses:<name>), sorted.
	Caps []string
	// WalletID is the wallet the plugin's calls act on and whose events it
	// receives; "" for none (then wallet calls are refused).
	WalletID string
}

// ParseGrant reads scope names (the twelve permission scopes and the
// capabilities of capability.go); each must be among declared.
func ParseGrant(names, declared []string) (Grant, error) {
	var g Grant
	for _, n := range names {
		if !slices.Contains(declared, n) {
			return Grant{}, fmt.Errorf("scope %q is not declared by the plugin", n)
		}
		if s, ok := auth.ParseScope(n); ok {
			g.Scopes |= auth.NewScopes(s)
		} else if h, ok := strings.CutPrefix(n, OutboundPrefix); ok {
			if !slices.Contains(g.Hosts, h) {
				g.Hosts = append(g.Hosts, h)
			}
		} else if w, ok := strings.CutPrefix(n, WellKnownPrefix); ok {
			if !slices.Contains(g.WellKnown, w) {
				g.WellKnown = append(g.WellKnown, w)
			}
		} else if slices.Contains(simpleCapabilities, n) || isServiceCapability(n) {
			if !slices.Contains(g.Caps, n) {
				g.Caps = append(g.Caps, n)
			}
		} else {
			return Grant{}, fmt.Errorf("unknown scope %q", n)
		}
	}
	slices.Sort(g.Hosts)
	slices.Sort(g.WellKnown)
	slices.Sort(g.Caps)
	return g, nil
}

// CheckGrantable refuses a grant that gives more than by holds: every
// permission scope of g must be among by's scopes (the rule of API keys,
// "a subset of the creator's own"), else auth.ErrKeyScopeExceeded (422)
// names the missing ones. The other scopes (http:outbound:<host>,
// nostr:sign, well-known:<name>) are capabilities of the server, not
// permissions over wallets that a principal holds: whoever may enable
// plugins (the admin principal with write:wallet, the route's guard) may
// grant them, as they may install the plugin's code in the first place.
func CheckGrantable(by *auth.Principal, g Grant) error {
	if by == nil || !by.Admin {
		return auth.ErrForbidden.Reasonf("Only the admin may grant scopes to a plugin")
	}
	if extra := g.Scopes &^ by.Scopes; extra != 0 {
		return auth.ErrKeyScopeExceeded.Reasonf("The granted scopes exceed your own: %s", strings.Join(extra.Names(), ", "))
	}
	return nil
}

// Names lists the grant as scope names.
func (g Grant) Names() []string {
	out := g.Scopes.Names()
	for _, h := range g.Hosts {
		out = append(out, OutboundPrefix+h)
	}
	for _, w := range g.WellKnown {
		out = append(out, WellKnownPrefix+w)
	}
	return append(out, g.Caps...)
}

// allowsHost reports whether HTTP to host (name, or name:port) is granted:
// http:any allows every host, a granted "name" any port of it, a granted
// "name:port" that port.
func (g Grant) allowsHost(host string) bool {
	if g.Has(HTTPAny) {
		return true
	}
	host = strings.ToLower(host)
	if slices.Contains(g.Hosts, host) {
		return true
	}
	if name, _, err := net.SplitHostPort(host); err == nil {
		return slices.Contains(g.Hosts, strings.Trim(name, "[]"))
	}
	return false
}

// ValidateConfig checks raw (a JSON object) against the schema, fills the
// defaults and returns the normalised JSON.
func ValidateConfig(schema map[string]ConfigField, raw []byte) ([]byte, error) {
	values := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&values); err != nil {
			return nil, fmt.Errorf("config must be a JSON object: %w", err)
		}
	}
	for k, v := range values {
		f, ok := schema[k]
		if !ok {
			return nil, fmt.Errorf("config key %q is not in the plugin's schema", k)
		}
		if err := checkValue(f, v); err != nil {
			return nil, fmt.Errorf("config %s: %w", k, err)
		}
	}
	for k, f := range schema {
		if _, ok := values[k]; ok {
			continue
		}
		switch {
		case f.Default != nil:
			values[k] = f.Default
		case f.Required:
			return nil, fmt.Errorf("config %s is required", k)
		}
	}
	return json.Marshal(values)
}

// ConfigComplete reports whether raw has every required key.
func ConfigComplete(schema map[string]ConfigField, raw []byte) error {
	_, err := ValidateConfig(schema, raw)
	return err
}

func checkValue(f ConfigField, v any) error {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string")
		}
		if len(s) > 4096 {
			return fmt.Errorf("longer than 4096 bytes")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false")
		}
	case "integer", "number":
		var x float64
		switch n := v.(type) {
		case json.Number:
			f, err := n.Float64()
			if err != nil {
				return fmt.Errorf("want a number")
			}
			x = f
		case float64:
			x = n
		default:
			return fmt.Errorf("want a number")
		}
		if f.Type == "integer" && (x != math.Trunc(x) || math.Abs(x) > 1<<53) {
			return fmt.Errorf("want an integer")
		}
	}
	return nil
}
