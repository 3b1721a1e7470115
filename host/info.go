package host

import (
	"encoding/json"
	"time"
)

// Info describes a plugin to the admin.
type Info struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	Kind        string   `json:"kind"` // wasm or builtin
	State       State    `json:"state"`
	Scopes      []string `json:"scopes"`
	Granted     []string `json:"granted"`
	// Capabilities are the declared scopes that are capabilities
	// (capability.go): what the plugin reaches beyond its wallet.
	Capabilities []string `json:"capabilities"`
	WalletID     string   `json:"wallet_id,omitempty"`
	Routes       []Route  `json:"routes,omitempty"`
	Events       []string `json:"events,omitempty"`
	Timers       []Timer  `json:"timers,omitempty"`
	// Metrics are the series the plugin counts itself (metric.go).
	Metrics map[string]Metric `json:"metrics,omitempty"`
	Config  json.RawMessage   `json:"config,omitempty"`
	// ConfigSchema is the manifest's schema of Config, by key, so that a
	// client (the dashboard) can offer a form for it.
	ConfigSchema map[string]ConfigField `json:"config_schema,omitempty"`
	Limits       Limits                 `json:"limits"`
	SHA256       string                 `json:"sha256,omitempty"`
	Error        string                 `json:"error,omitempty"`
	// Health is the outcome of the plugin's health check, when it has one
	// (a node backend: "ok", or why the node is unreachable or unsynced),
	// as of the last CheckHealth.
	Health    string `json:"health,omitempty"`
	Faults    int    `json:"faults"`
	Delivered uint64 `json:"events_delivered"`
	// Dropped counts the events the plugin missed: it was not running.
	Dropped   uint64    `json:"events_dropped"`
	CreatedAt time.Time `json:"created_at"`
}

// Info describes the plugin; secret config values are masked.
func (p *Plugin) Info() Info {
	g := p.Grant()
	kind := "wasm"
	if p.Builtin {
		kind = "builtin"
	}
	p.mu.Lock()
	state, lastErr, faults, health := p.state, p.lastError, p.faults, p.health
	p.mu.Unlock()
	scopes := p.Manifest.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	routes := p.Manifest.Routes
	if p.Builtin {
		routes = p.served
	}
	return Info{
		Name: p.Name, Version: p.Manifest.Version, Description: p.Manifest.Description, Kind: kind,
		State: state, Scopes: scopes, Granted: g.Names(), Capabilities: p.Manifest.DeclaredCapabilities(), WalletID: g.WalletID,
		Routes: routes, Events: p.Manifest.Events, Timers: p.Manifest.Timers, Metrics: p.Manifest.Metrics, Config: p.maskedConfig(), ConfigSchema: p.Manifest.Config,
		Limits: p.Manifest.Limits, SHA256: p.SHA256, Error: lastErr, Health: health, Faults: faults,
		Delivered: p.delivered.Load(), Dropped: p.dropped.Load(), CreatedAt: p.created,
	}
}

func (p *Plugin) maskedConfig() json.RawMessage {
	raw := p.Config()
	var values map[string]any
	if json.Unmarshal(raw, &values) != nil {
		return nil
	}
	for k, f := range p.Manifest.Config {
		if _, ok := values[k]; ok && f.Secret {
			values[k] = ConfigMask
		}
	}
	b, _ := json.Marshal(values)
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
