package nostr

import "strings"

// SectionKey is the plugin's table of the configuration: the application has
// config.Load decode it into a Settings.
const SectionKey = "nostr"

// Settings is the plugin's section of the configuration, [nostr] (and
// HEARTH_NOSTR_* in the environment).
type Settings struct {
	// DefaultRelays, separated by commas (wss://relay.example.com,…),
	// receive every zap receipt besides the relays the zap request names,
	// and are the relays of NIP-05 answers. Default none.
	DefaultRelays string `toml:"default_relays"`
	// MaxRelays caps the relays of one zap request that get its receipt
	// (the first ones). Default 20.
	MaxRelays int `toml:"max_relays"`
	// RetryHours is how long a receipt is retried on a relay that does not
	// take it. Default 72.
	RetryHours int `toml:"retry_hours"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings { return Settings{MaxRelays: 20, RetryHours: 72} }

// Relays are the default relays of s.
func (s Settings) Relays() []string {
	var out []string
	for _, r := range strings.Split(s.DefaultRelays, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}
