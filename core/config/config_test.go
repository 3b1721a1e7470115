package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":3000" || c.SQLitePath() != filepath.Join("data", "hearth.db") || c.Auth.TokenExpiry.Duration != 24*time.Hour {
		t.Fatalf("unexpected defaults: %+v", c)
	}
}

func TestFileThenEnv(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	body := "listen = \":4000\"\ninvoice_expiry = \"1h\"\n[auth]\ntoken_expiry = \"2h\"\n[http]\nmax_body_bytes = 1024\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, []string{
		"HEARTH_LISTEN=:5000",
		"HEARTH_DATABASE_URL=postgres://u:p@localhost/db",
		"HEARTH_AUTH_TOKEN_EXPIRY=30m",
		"HEARTH_HTTP_TRUST_PROXY=true",
		"HEARTH_PLUGINS_CPU_SHARE=0.25",
		"PATH=/bin",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != ":5000" {
		t.Errorf("env did not override file: listen = %q", c.Listen)
	}
	if c.InvoiceExpiry.Duration != time.Hour || c.HTTP.MaxBodyBytes != 1024 {
		t.Errorf("file values lost: %+v", c)
	}
	if c.Auth.TokenExpiry.Duration != 30*time.Minute || !c.HTTP.TrustProxy {
		t.Errorf("nested env not applied: %+v", c.Auth)
	}
	if c.Plugins.CPUShare != 0.25 || c.Plugins.CPUBurst.Duration != 50*time.Millisecond {
		t.Errorf("plugins' CPU share %v, burst %s", c.Plugins.CPUShare, c.Plugins.CPUBurst)
	}
	if c.SQLitePath() != "" {
		t.Errorf("postgres URL should not select SQLite")
	}
}

// The shutdown's keys: 30s and no drain delay by default, from the file's
// [shutdown] table, then from HEARTH_SHUTDOWN_*.
func TestShutdownKeys(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Shutdown.Timeout.Duration != 30*time.Second || c.Shutdown.DrainDelay.Duration != 0 {
		t.Errorf("defaults: %+v", c.Shutdown)
	}
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("[shutdown]\ntimeout = \"45s\"\ndrain_delay = \"5s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(path, []string{"HEARTH_SHUTDOWN_DRAIN_DELAY=7s"}); err != nil {
		t.Fatal(err)
	}
	if c.Shutdown.Timeout.Duration != 45*time.Second || c.Shutdown.DrainDelay.Duration != 7*time.Second {
		t.Errorf("from the file, then the environment: %+v", c.Shutdown)
	}
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"HEARTH_AUTH_PROVIDER=ldap"}, "auth.provider"},
		{[]string{"HEARTH_AUTH_PROVIDER=oidc"}, "auth.oidc.issuer"},
		{[]string{"HEARTH_AUTH_PROVIDER=oidc", "HEARTH_AUTH_OIDC_ISSUER=id.example.com", "HEARTH_AUTH_OIDC_AUDIENCE=hearth"}, "not an http(s) URL"},
		{[]string{"HEARTH_AUTH_TOKEN_EXPIRY=soon"}, "HEARTH_AUTH_TOKEN_EXPIRY"},
		{[]string{"HEARTH_HTTP_MAX_BODY_BYTES=-1"}, "max_body_bytes"},
		{[]string{"HEARTH_NODE_BACKEND=eclair"}, "node.backend"},
		{[]string{"HEARTH_PLUGINS_CPU_SHARE=0"}, "plugins.cpu_share"},
		{[]string{"HEARTH_PLUGINS_CPU_SHARE=lots"}, "HEARTH_PLUGINS_CPU_SHARE"},
		{[]string{"HEARTH_PLUGINS_CPU_BURST=0s"}, "plugins.cpu_burst"},
		{[]string{"HEARTH_PLUGINS_KV_KEYS=0"}, "plugins.kv_keys"},
		{[]string{"HEARTH_PLUGINS_CATALOG=ftp://plugins.example.com/index.json"}, "plugins.catalog"},
		{[]string{"HEARTH_SHUTDOWN_TIMEOUT=0s"}, "shutdown.timeout"},
		{[]string{"HEARTH_SHUTDOWN_DRAIN_DELAY=-1s"}, "shutdown.drain_delay"},
		{[]string{"HEARTH_SHUTDOWN_DRAIN_DELAY=later"}, "HEARTH_SHUTDOWN_DRAIN_DELAY"},
	} {
		_, err := Load("", tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want mention of %s", tc.env, err, tc.want)
		}
	}
}

// backendSection is a built-in's section, as plugins/node/lnd declares its
// own.
type backendSection struct {
	Address  string `toml:"address"`
	TLSCert  string `toml:"tls_cert"`
	Macaroon string `toml:"macaroon"`
	Port     int    `toml:"port"`
}

// TestSectionFromFileAndEnv decodes a built-in's section: its defaults,
// then the file's table, then its HEARTH_* variables, the keys and names
// of core's own config; an unknown key of the section is refused.
func TestSectionFromFileAndEnv(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	file := "listen = \":4000\"\n[node]\nbackend = \"lnd\"\n[node.lnd]\naddress = \"10.0.0.1:10009\"\nport = 7\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	sec := backendSection{Address: "localhost:10009", Macaroon: "default"}
	c, err := Load(path, []string{
		"HEARTH_NODE_LND_TLS_CERT=/lnd/tls.cert",
		"HEARTH_NODE_LND_MACAROON=/lnd/admin.macaroon",
	}, Section{Key: "node.lnd", Value: &sec})
	if err != nil {
		t.Fatal(err)
	}
	want := backendSection{Address: "10.0.0.1:10009", TLSCert: "/lnd/tls.cert", Macaroon: "/lnd/admin.macaroon", Port: 7}
	if c.Node.Backend != "lnd" || c.Listen != ":4000" || sec != want {
		t.Fatalf("node = %+v, section %+v", c.Node, sec)
	}
	if got, _ := c.Builtin("node.lnd").(*backendSection); got != &sec {
		t.Errorf("Builtin(node.lnd) = %v", c.Builtin("node.lnd"))
	}
	if c.Builtin("node.cln") != nil {
		t.Error("a section nobody declared")
	}
	// Without the section, its keys are unknown; with it, a key it lacks is.
	if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), "node.lnd") {
		t.Errorf("undeclared section: err = %v", err)
	}
	if err := os.WriteFile(path, []byte("[node.lnd]\nadress = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, nil, Section{Key: "node.lnd", Value: &backendSection{}}); err == nil || !strings.Contains(err.Error(), "node.lnd.adress") {
		t.Errorf("unknown key of a section: err = %v", err)
	}
	if _, err := Load("", []string{"HEARTH_NODE_LND_PORT=many"}, Section{Key: "node.lnd", Value: &backendSection{}}); err == nil ||
		!strings.Contains(err.Error(), "HEARTH_NODE_LND_PORT") {
		t.Errorf("bad variable of a section: err = %v", err)
	}
}

func TestUnknownFileKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("lisen = \":1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), "lisen") {
		t.Fatalf("err = %v, want unknown key", err)
	}
}

// events.retention defaults to 7 days, is set like any key, and refuses a
// window too short to resume a stream in.

// The dashboard's OIDC client: client_id and scopes from the file or the
// environment, scopes "openid" unless set.
func TestOIDCClient(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	body := "[auth]\nprovider = \"oidc\"\n[auth.oidc]\nissuer = \"https://id.example.com/realms/x\"\naudience = \"hearth\"\nclient_id = \"hearth-dashboard\"\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Auth.OIDC.ClientID != "hearth-dashboard" || c.Auth.OIDC.Scopes != "openid" {
		t.Fatalf("client_id %q, scopes %q", c.Auth.OIDC.ClientID, c.Auth.OIDC.Scopes)
	}
	c, err = Load(path, []string{"HEARTH_AUTH_OIDC_CLIENT_ID=other", "HEARTH_AUTH_OIDC_SCOPES=openid profile"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Auth.OIDC.ClientID != "other" || c.Auth.OIDC.Scopes != "openid profile" {
		t.Fatalf("from the environment: client_id %q, scopes %q", c.Auth.OIDC.ClientID, c.Auth.OIDC.Scopes)
	}
}
