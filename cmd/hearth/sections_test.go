package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if l := lndConfig(cfg); l.Address != "10.1.1.1:10009" || l.TLSCert != "/x/tls.cert" || l.Macaroon != "/x/admin.macaroon" {
		t.Errorf("lnd section %+v", l)
	}
	if sharedConfig(cfg)["node.lnd.address"] != "10.1.1.1:10009" {
		t.Errorf("shared config %v", sharedConfig(cfg))
	}
	cfg, err = loadConfig("", nil)
	if err != nil || lndConfig(cfg).Address != "localhost:10009" {
		t.Errorf("default lnd address %q, %v", lndConfig(cfg).Address, err)
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
	c := lnurlConfig(cfg)
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
	c := nostrConfig(cfg)
	if len(c.DefaultRelays) != 2 || c.DefaultRelays[1] != "wss://nos.lol/" || c.MaxRelays != 5 || c.RetryWindow != 24*time.Hour {
		t.Errorf("nostr config %+v", c)
	}
	if cfg, err := loadConfig("", nil); err != nil || len(nostrConfig(cfg).DefaultRelays) != 0 || nostrConfig(cfg).MaxRelays != 20 {
		t.Errorf("defaults: %+v, %v", nostrConfig(cfg), err)
	}
	if _, err := loadConfig("", []string{"HEARTH_NOSTR_DEFAULT_RELAYS=https://relay.example.com"}); err == nil {
		t.Error("an https default relay loaded")
	}
}
