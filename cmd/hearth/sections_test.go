package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/builtins"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/onchain"
	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// The LND settings are the lnd backend's own section now, with the keys
// and variables they always had.
func TestLNDSection(t *testing.T) {
	t.Parallel()
	if _, err := loadConfig("", []string{"HEARTH_NODE_BACKEND=lnd"}); err == nil || !strings.Contains(err.Error(), "node.lnd.tls_cert") {
		t.Errorf("lnd without its section: err = %v", err)
	}
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("[node]\nbackend = \"lnd\"\n[node.lnd]\naddress = \"10.1.1.1:10009\"\ntls_cert = \"/x/tls.cert\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path, []string{"HEARTH_NODE_LND_MACAROON=/x/admin.macaroon"})
	if err != nil {
		t.Fatal(err)
	}
	if l := builtins.LNDConfig(cfg); l.Address != "10.1.1.1:10009" || l.TLSCert != "/x/tls.cert" || l.Macaroon != "/x/admin.macaroon" {
		t.Errorf("lnd section %+v", l)
	}
	if sharedConfig(cfg)["node.lnd.address"] != "10.1.1.1:10009" {
		t.Errorf("shared config %v", sharedConfig(cfg))
	}
	cfg, err = loadConfig("", nil)
	if err != nil || builtins.LNDConfig(cfg).Address != "localhost:10009" {
		t.Errorf("default lnd address %q, %v", builtins.LNDConfig(cfg).Address, err)
	}
}

// The LNURL settings are the plugin's [lnurl] section, with the instance's
// domain and public URL.
func TestLNURLSection(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig("", []string{"HEARTH_DOMAIN=Example.COM", "HEARTH_PUBLIC_URL=https://pay.example.com",
		"HEARTH_LNURL_COMMENT_ALLOWED=-1", "HEARTH_LNURL_RESERVED_USERNAMES=Bob, carol,", "HEARTH_LNURL_MAX_SENDABLE_MSAT=5000000"})
	if err != nil {
		t.Fatal(err)
	}
	c := lnurl.ConfigFrom(host.SettingsOf(cfg, lnurl.SectionKey))
	if c.Domain != "Example.COM" || c.PublicURL != "https://pay.example.com" || c.CommentAllowed != -1 ||
		c.MinSendableMsat != 1000 || c.MaxSendableMsat != 5_000_000 || len(c.Reserved) != 2 || c.Reserved[0] != "bob" {
		t.Errorf("lnurl config %+v", c)
	}
	for _, env := range [][]string{
		{"HEARTH_LNURL_MIN_SENDABLE_MSAT=9000", "HEARTH_LNURL_MAX_SENDABLE_MSAT=8000"},
		{"HEARTH_DOMAIN=https://example.com"},
		{"HEARTH_LNURL_RATE_BURST=some"},
	} {
		if _, err := loadConfig("", env); err == nil {
			t.Errorf("%v: loaded", env)
		}
	}
}

// The Nostr settings are the plugin's [nostr] section.
func TestNostrSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("[nostr]\ndefault_relays = \"wss://relay.damus.io, wss://nos.lol/\"\nmax_relays = 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path, []string{"HEARTH_NOSTR_RETRY_HOURS=24"})
	if err != nil {
		t.Fatal(err)
	}
	c := nostr.ConfigFrom(host.SettingsOf(cfg, nostr.SectionKey))
	if len(c.DefaultRelays) != 2 || c.DefaultRelays[1] != "wss://nos.lol/" || c.MaxRelays != 5 || c.RetryWindow != 24*time.Hour {
		t.Errorf("nostr config %+v", c)
	}
	if cfg, err := loadConfig("", nil); err != nil || len(nostr.ConfigFrom(host.SettingsOf(cfg, nostr.SectionKey)).DefaultRelays) != 0 || nostr.ConfigFrom(host.SettingsOf(cfg, nostr.SectionKey)).MaxRelays != 20 {
		t.Errorf("defaults: %+v, %v", nostr.ConfigFrom(host.SettingsOf(cfg, nostr.SectionKey)), err)
	}
	if _, err := loadConfig("", []string{"HEARTH_NOSTR_DEFAULT_RELAYS=https://relay.example.com"}); err == nil {
		t.Error("an https default relay loaded")
	}
}

// The webhooks settings are the plugin's [webhooks] section now, with the
// keys and variables they always had; a key it does not know is refused.
func TestWebhooksSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("[webhooks]\nretry_window = \"48h\"\ndisable_after_days = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path, []string{"HEARTH_WEBHOOKS_FIRST_RETRY=5s"})
	if err != nil {
		t.Fatal(err)
	}
	if s := app.Section(cfg, webhooks.SectionKey, webhooks.Settings{}); s.RetryWindow.Duration != 48*time.Hour || s.DisableAfterDays != 2 ||
		s.FirstRetry.Duration != 5*time.Second {
		t.Errorf("webhooks section %+v", s)
	}
	if cfg, err := loadConfig("", nil); err != nil || app.Section(cfg, webhooks.SectionKey, webhooks.Settings{}) != webhooks.DefaultSettings() ||
		webhooks.DefaultSettings().RetryWindow.Duration != 72*time.Hour {
		t.Errorf("defaults: %+v, %v", app.Section(cfg, webhooks.SectionKey, webhooks.Settings{}), err)
	}
	for _, env := range []string{"HEARTH_WEBHOOKS_RETRY_WINDOW=23h", "HEARTH_WEBHOOKS_DISABLE_AFTER_DAYS=0", "HEARTH_WEBHOOKS_FIRST_RETRY=0s",
		"HEARTH_WEBHOOKS_FIRST_RETRY=soon"} {
		if _, err := loadConfig("", []string{env}); err == nil {
			t.Errorf("%s accepted", env)
		}
	}
	if err := os.WriteFile(path, []byte("[webhooks]\nretry_windows = \"48h\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadConfig(path, nil); err == nil || !strings.Contains(err.Error(), "webhooks.retry_windows") {
		t.Errorf("an unknown key: %v", err)
	}
}

// The on-chain settings are the plugin's [onchain] section now, with the
// keys and variables they always had, and their bounds.
func TestOnchainSection(t *testing.T) {
	t.Parallel()
	onchainOf := func(cfg config.Config) onchain.Settings {
		return app.Section(cfg, onchain.SectionKey, onchain.Settings{})
	}
	cfg, err := loadConfig("", nil)
	if err != nil || onchainOf(cfg) != (onchain.Settings{MinConfirmations: 1, ReorgBuffer: 6, TargetConf: 6}) {
		t.Fatalf("defaults %+v, %v", onchainOf(cfg), err)
	}
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("bitcoin_address_type = \"p2tr\"\n[onchain]\nmin_confirmations = 3\nreorg_buffer = 12\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = loadConfig(path, []string{"HEARTH_ONCHAIN_TARGET_CONF=2"})
	if err != nil || onchainOf(cfg) != (onchain.Settings{MinConfirmations: 3, ReorgBuffer: 12, TargetConf: 2}) {
		t.Fatalf("from the file and the environment %+v, %v", onchainOf(cfg), err)
	}
	if c := onchain.ConfigOf(onchainOf(cfg), cfg.BitcoinAddressType); c.DefaultType != "p2tr" || c.MinConfirmations != 3 || c.TargetConf != 2 {
		t.Errorf("plugin config %+v", c)
	}
	for _, env := range []string{"HEARTH_ONCHAIN_MIN_CONFIRMATIONS=0", "HEARTH_ONCHAIN_REORG_BUFFER=0", "HEARTH_ONCHAIN_TARGET_CONF=0",
		"HEARTH_ONCHAIN_TARGET_CONF=2000", "HEARTH_ONCHAIN_MIN_CONFIRMATIONS=1001"} {
		if _, err := loadConfig("", []string{env}); err == nil {
			t.Errorf("%s accepted", env)
		}
	}
}
