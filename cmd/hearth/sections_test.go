package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
