package nwc

import "strings"

// SectionKey is the plugin's table of the configuration: [nwc] (and
// HEARTH_NWC_* in the environment).
const SectionKey = "nwc"

// Settings is the plugin's section of the configuration.
type Settings struct {
	// Relays, separated by commas (wss://relay.example.com,…), are where
	// the plugin listens for requests and publishes its answers, info
	// event and notifications; every connection's URI names them. With
	// none, NWC is off: connections cannot be made.
	Relays string `toml:"relays"`
	// FollowAppRelays, separated by commas, are relays an app may name
	// (nostr+walletauth, /apps/new) beside Relays: the plugin listens and
	// answers there too, for the connections paired on them, but puts
	// them in no URI of its own. An app's relay that is in neither list
	// is not used.
	FollowAppRelays string `toml:"follow_app_relays"`
	// RetryHours is how long a notification is retried on a relay that
	// does not take it. Default 24.
	RetryHours int `toml:"retry_hours"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings { return Settings{RetryHours: 24} }

// RelayList is the relays of s.
func (s Settings) RelayList() []string { return splitRelays(s.Relays) }

// AppRelayList is the app relays s follows.
func (s Settings) AppRelayList() []string { return splitRelays(s.FollowAppRelays) }

func splitRelays(list string) []string {
	var out []string
	for _, r := range strings.Split(list, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}
