package lnurl

import "strings"

// SectionKey is the plugin's table of the configuration: the application has
// config.Load decode it into a Settings.
const SectionKey = "lnurl"

// Settings is the plugin's section of the configuration, [lnurl] (and
// HEARTH_LNURL_* in the environment); domain and public_url are the
// instance's own keys.
type Settings struct {
	// MinSendableMsat and MaxSendableMsat bound one payment to an
	// address (the payRequest's minSendable and maxSendable). Defaults
	// 1000 (1 sat) and 100000000000 (1 BTC).
	MinSendableMsat int64 `toml:"min_sendable_msat"`
	MaxSendableMsat int64 `toml:"max_sendable_msat"`
	// MinSendable and MaxSendable bound it in a currency too, converted
	// at the instance's rate of each payRequest: "0.50 USD", "500 EUR".
	// Default none.
	MinSendable string `toml:"min_sendable"`
	MaxSendable string `toml:"max_sendable"`
	// CommentAllowed is the longest comment a payer may attach (LUD-12),
	// in characters. Default 255; -1 takes none.
	CommentAllowed int `toml:"comment_allowed"`
	// ReservedUsernames, separated by commas, may not be registered.
	// Empty takes the default list (admin, root, support, postmaster…).
	ReservedUsernames string `toml:"reserved_usernames"`
	// RatePerMinute and RateBurst limit the public LNURL endpoints per
	// client address (429 with Retry-After beyond). Defaults 120 and 60.
	RatePerMinute int `toml:"rate_per_minute"`
	RateBurst     int `toml:"rate_burst"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings {
	return Settings{MinSendableMsat: 1000, MaxSendableMsat: 100_000_000_000, CommentAllowed: 255,
		RatePerMinute: 120, RateBurst: 60}
}

// ConfigOf is the plugin's Config of the instance's domain and public URL,
// its settings, and whether private hosts are allowed.
func ConfigOf(domain, publicURL string, s Settings, allowPrivate bool) Config {
	c := Config{Domain: domain, PublicURL: publicURL, MinSendableMsat: s.MinSendableMsat, MaxSendableMsat: s.MaxSendableMsat,
		MinSendable: s.MinSendable, MaxSendable: s.MaxSendable,
		CommentAllowed: s.CommentAllowed, RatePerMinute: s.RatePerMinute, RateBurst: s.RateBurst, AllowPrivate: allowPrivate}
	if s.CommentAllowed < 0 {
		c.CommentAllowed = -1
	}
	if r := strings.TrimSpace(s.ReservedUsernames); r != "" {
		c.Reserved = []string{}
		for _, name := range strings.Split(r, ",") {
			if name = strings.ToLower(strings.TrimSpace(name)); name != "" {
				c.Reserved = append(c.Reserved, name)
			}
		}
	}
	return c
}
