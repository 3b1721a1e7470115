package webhooks

import (
	"errors"
	"time"

	"github.com/hearthwallet/hearth/core/config"
)

// SectionKey is the plugin's table of the configuration: the application
// has config.Load decode it into a Settings.
const SectionKey = "webhooks"

// Settings is the plugin's section of the configuration, [webhooks] (and
// HEARTH_WEBHOOKS_* in the environment).
type Settings struct {
	// RetryWindow is how long a delivery is retried, with exponential
	// backoff, before it is given up. Default 72h; at least 24h.
	RetryWindow config.Duration `toml:"retry_window"`
	// DisableAfterDays disables a webhook that has failed for this many
	// days without one successful delivery; its owner sees the reason.
	// Default 5.
	DisableAfterDays int `toml:"disable_after_days"`
	// FirstRetry is the wait after a first failure, doubled after each
	// further one up to an hour. Default 10s.
	FirstRetry config.Duration `toml:"first_retry"`
}

// DefaultSettings are the settings before the file and the environment.
func DefaultSettings() Settings {
	return Settings{RetryWindow: config.Duration{Duration: 72 * time.Hour}, DisableAfterDays: 5,
		FirstRetry: config.Duration{Duration: 10 * time.Second}}
}

// Validate checks the settings' bounds.
func (s Settings) Validate() error {
	if s.RetryWindow.Duration < 24*time.Hour || s.DisableAfterDays < 1 || s.FirstRetry.Duration <= 0 {
		return errors.New("webhooks.retry_window must be at least 24h, webhooks.disable_after_days at least 1, webhooks.first_retry positive")
	}
	return nil
}

// ConfigOf is the plugin's Config of its settings and whether private
// hosts are allowed (plugins.allow_private_hosts).
func ConfigOf(s Settings, allowPrivate bool) Config {
	return Config{RetryWindow: s.RetryWindow.Duration, DisableAfter: time.Duration(s.DisableAfterDays) * 24 * time.Hour,
		FirstRetry: s.FirstRetry.Duration, AllowPrivate: allowPrivate}
}
