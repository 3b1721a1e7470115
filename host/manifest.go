package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/outbox"
)

// ABIVersion is the newest plugin ABI this host speaks; it is also the
// name of the import module that holds the host functions. hearth_v2 adds
// to hearth_v1 the caller of an authenticated route in its request, the
// calls that act for it (with caller:act), and the host functions receive
// and received_invoice; a hearth_v1 plugin loads and runs as before.
const ABIVersion = "hearth_v2"

// ABIv1 is the first plugin ABI, still loaded.
const ABIv1 = "hearth_v1"

// ABIVersions are the ABIs this host loads, oldest first.
var ABIVersions = []string{ABIv1, ABIVersion}

// Limits on manifests.
const (
	DefaultMemoryMiB = 32
	MaxMemoryMiB     = 256
	DefaultTimeoutMS = 2000
	MaxTimeoutMS     = 30000
	maxManifestBytes = 64 << 10
	maxRoutes        = 32
	maxScopes        = 64
	maxConfigKeys    = 64
)

// OutboundPrefix starts a scope that allows HTTP to one host.
const OutboundPrefix = "http:outbound:"

// WellKnownPrefix starts a scope that lets a plugin serve the paths under
// /.well-known/<name>/ (RFC 8615) at the server's root: well-known:lnurlp
// for /.well-known/lnurlp/…, well-known:nostr.json for /.well-known/nostr.json.
const WellKnownPrefix = "well-known:"

// wellKnownRoot starts the path of a route a plugin serves at the server's
// root rather than under /v1/plugins/{name}.
const wellKnownRoot = "/.well-known/"

// Manifest is what a plugin declares about itself.
type Manifest struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	ABI         string `json:"abi"`
	Description string `json:"description,omitempty"`
	// Scopes asked: any of the twelve permission scopes and the
	// capabilities (capability.go: http:outbound:<host>, nostr:sign,
	// events:all, …). The admin grants a WebAssembly plugin a subset; a
	// built-in is granted what it declares.
	Scopes []string `json:"scopes,omitempty"`
	Routes []Route  `json:"routes,omitempty"`
	// Events are the event types the plugin subscribes to: the ledger's
	// (KnownEvents) or those other plugins emit.
	Events []string `json:"events,omitempty"`
	// Emits are the event types the plugin adds to the outbox (Caller.Tx),
	// each its name, a dot and a word: withdraw.claimed.
	Emits []string `json:"emits,omitempty"`
	// EventTags "own" keeps, of the invoices' events, only those of the
	// invoices the plugin tagged (ledger.Tag): a plugin that serves every
	// user (events:all) is given its own invoices' settlements and no other
	// wallet's. "" keeps every invoice's.
	EventTags string `json:"event_tags,omitempty"`
	// Timers are handlers the host runs on a schedule (timer.go).
	Timers []Timer `json:"timers,omitempty"`
	// Metrics are the series the plugin counts itself, by name (metric.go).
	Metrics map[string]Metric `json:"metrics,omitempty"`
	// Config is the schema of the plugin's configuration, by key.
	Config map[string]ConfigField `json:"config,omitempty"`
	Limits Limits                 `json:"limits,omitzero"`
}

// Route is an HTTP route the plugin serves under /v1/plugins/{name}, or at
// the server's root for a path under /.well-known/.
type Route struct {
	Method string `json:"method"`
	// Path starts with "/"; a final "/*" matches any rest of the path. A
	// path under /.well-known/<name> is served at the server's root: such
	// a route must be public, and the manifest must ask the scope
	// well-known:<name>, which the admin may grant to one plugin at a time.
	Path string `json:"path"`
	// Public routes need no credential; otherwise Scope is required of the caller.
	Public bool   `json:"public,omitempty"`
	Scope  string `json:"scope,omitempty"`
	// Admin routes take the admin principal alone: a built-in's (its
	// Info shows them); a manifest may not declare one.
	Admin bool `json:"admin,omitempty"`
}

// ConfigField describes one configuration key.
type ConfigField struct {
	Type        string `json:"type"` // string, integer, number or boolean
	Required    bool   `json:"required,omitempty"`
	Secret      bool   `json:"secret,omitempty"` // shown masked; an update leaving it out keeps it
	Description string `json:"description,omitempty"`
	Default     any    `json:"default,omitempty"`
}

// Limits bound the plugin's sandbox.
type Limits struct {
	MemoryMiB int `json:"memory_mib,omitempty"`
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

var (
	nameRE    = regexp.MustCompile(`^[a-z][a-z0-9-]{1,31}$`)
	versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	hostRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$`)
	pathRE    = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)*(/\*)?/?$`)
	keyRE     = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// LedgerEventTypes returns the ledger's event types, sorted.
func LedgerEventTypes() []string { return slices.Sorted(maps.Keys(KnownEvents)) }

// KnownEvents are the ledger's events (outbox.LedgerTypes), which every
// plugin may subscribe to; those the plugins emit join them
// (Registry.EventTypes). Read only.
var KnownEvents = outbox.LedgerTypes

// ParseManifest decodes and validates a manifest strictly: unknown fields,
// trailing data and every invalid value are errors.
func ParseManifest(b []byte) (*Manifest, error) {
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("manifest larger than %d bytes", maxManifestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	m := new(Manifest)
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("decoding manifest: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decoding manifest: data after the object")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate checks every field and fills the default limits.
func (m *Manifest) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !nameRE.MatchString(m.Name) {
		bad("name %q: 2-32 of a-z, 0-9, '-', starting with a letter", m.Name)
	}
	if m.Name == "catalog" || m.Name == "install" {
		bad("name %q is the admin API's (/v1/plugins/%s)", m.Name, m.Name)
	}
	if !versionRE.MatchString(m.Version) {
		bad("version %q is not semantic (1.2.3)", m.Version)
	}
	if !slices.Contains(ABIVersions, m.ABI) {
		bad("abi %q: this host speaks %s", m.ABI, strings.Join(ABIVersions, " and "))
	}
	if len(m.Description) > 500 {
		bad("description longer than 500 bytes")
	}
	if len(m.Scopes) > maxScopes {
		bad("more than %d scopes", maxScopes)
	}
	seen := map[string]bool{}
	for _, s := range m.Scopes {
		if seen[s] {
			bad("scope %q listed twice", s)
		}
		seen[s] = true
		if err := checkScope(s); err != nil {
			errs = append(errs, err)
		}
	}
	if len(m.Routes) > maxRoutes {
		bad("more than %d routes", maxRoutes)
	}
	for i, r := range m.Routes {
		switch r.Method {
		case "GET", "POST", "PUT", "DELETE", "PATCH":
		default:
			bad("routes[%d]: method %q", i, r.Method)
		}
		if !pathRE.MatchString(r.Path) || len(r.Path) > 200 || r.Path == "" {
			bad("routes[%d]: path %q", i, r.Path)
		}
		switch strings.TrimSuffix(r.Path, "/") {
		case "/enable", "/disable", "/config", "/logs":
			bad("routes[%d]: path %q is reserved for the admin API", i, r.Path)
		}
		if r.Public == (r.Scope != "") {
			bad("routes[%d]: set either public or a scope", i)
		}
		if r.Admin {
			bad("routes[%d]: admin routes are a built-in's", i)
		}
		if name, ok := wellKnownName(r.Path); ok {
			switch {
			case !r.Public:
				bad("routes[%d]: a route under %s must be public", i, wellKnownRoot)
			case !slices.Contains(m.Scopes, WellKnownPrefix+name):
				bad("routes[%d]: a route under %s%s needs the scope %s%s", i, wellKnownRoot, name, WellKnownPrefix, name)
			}
		} else if strings.HasPrefix(r.Path, strings.TrimSuffix(wellKnownRoot, "/")) {
			bad("routes[%d]: path %q: name a path under %s", i, r.Path, wellKnownRoot)
		}
		if _, ok := auth.ParseScope(r.Scope); r.Scope != "" && !ok {
			bad("routes[%d]: unknown scope %q", i, r.Scope)
		}
	}
	if m.EventTags != "" && m.EventTags != "own" {
		bad("event_tags is %q: want \"own\" or nothing", m.EventTags)
	}
	for _, e := range m.Events {
		if !KnownEvents[e] && !eventTypeRE.MatchString(e) {
			bad("unknown event %q", e)
		}
	}
	for _, e := range m.Emits {
		if why := validEventType(m.Name, e); why != "" {
			bad("emits %q: %s", e, why)
		}
	}
	validateTimers(m.Timers, bad)
	validateMetrics(m.Metrics, bad)
	if len(m.Config) > maxConfigKeys {
		bad("more than %d config keys", maxConfigKeys)
	}
	for k, f := range m.Config {
		if !keyRE.MatchString(k) {
			bad("config key %q: a-z, 0-9, '_'", k)
		}
		switch f.Type {
		case "string", "integer", "number", "boolean":
		default:
			bad("config %s: type %q", k, f.Type)
		}
		if f.Default != nil {
			if err := checkValue(f, f.Default); err != nil {
				bad("config %s: default: %v", k, err)
			}
		}
	}
	switch l := &m.Limits; {
	case l.MemoryMiB < 0 || l.MemoryMiB > MaxMemoryMiB:
		bad("limits.memory_mib must be between 1 and %d", MaxMemoryMiB)
	case l.TimeoutMS < 0 || l.TimeoutMS > MaxTimeoutMS:
		bad("limits.timeout_ms must be between 1 and %d", MaxTimeoutMS)
	}
	if m.Limits.MemoryMiB == 0 {
		m.Limits.MemoryMiB = DefaultMemoryMiB
	}
	if m.Limits.TimeoutMS == 0 {
		m.Limits.TimeoutMS = DefaultTimeoutMS
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid manifest: %w", errors.Join(errs...))
	}
	return nil
}

func checkScope(s string) error {
	if _, ok := auth.ParseScope(s); ok || slices.Contains(simpleCapabilities, s) || isServiceCapability(s) {
		return nil
	}
	if h, ok := strings.CutPrefix(s, OutboundPrefix); ok {
		if !hostRE.MatchString(h) || len(h) > 253 {
			return fmt.Errorf("scope %q: not a host name", s)
		}
		return nil
	}
	if n, ok := strings.CutPrefix(s, WellKnownPrefix); ok {
		if !wellKnownRE.MatchString(n) {
			return fmt.Errorf("scope %q: not a well-known name (1-64 of a-z, 0-9, '.', '_', '-')", s)
		}
		return nil
	}
	return fmt.Errorf("unknown scope %q", s)
}

// wellKnownRE is a name under /.well-known/ a plugin may claim.
var wellKnownRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// wellKnownName returns the name under /.well-known/ that path is in:
// "lnurlp" for /.well-known/lnurlp/*, "nostr.json" for /.well-known/nostr.json.
func wellKnownName(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, wellKnownRoot)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, wellKnownRE.MatchString(name)
}

// Subscribes reports whether the manifest lists event type typ.
func (m *Manifest) Subscribes(typ string) bool {
	for _, e := range m.Events {
		if e == typ {
			return true
		}
	}
	return false
}

// Match returns the route that serves method and path under
// /v1/plugins/{name}, if any; never one under /.well-known/.
func (m *Manifest) Match(method, path string) (*Route, bool) {
	if path == "" {
		path = "/"
	}
	if _, ok := wellKnownName(path); ok {
		return nil, false
	}
	return m.match(method, path)
}

// MatchWellKnown returns the route that serves method and path, a path
// under /.well-known/ at the server's root, if any.
func (m *Manifest) MatchWellKnown(method, path string) (*Route, bool) {
	if _, ok := wellKnownName(path); !ok {
		return nil, false
	}
	return m.match(method, path)
}

func (m *Manifest) match(method, path string) (*Route, bool) {
	for i := range m.Routes {
		r := &m.Routes[i]
		if r.Method != method {
			continue
		}
		if prefix, ok := strings.CutSuffix(r.Path, "/*"); ok {
			if path == prefix || strings.HasPrefix(path, prefix+"/") {
				return r, true
			}
		} else if strings.TrimSuffix(r.Path, "/") == strings.TrimSuffix(path, "/") {
			return r, true
		}
	}
	return nil, false
}
