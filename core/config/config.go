// Package config holds Hearth's configuration: one struct whose defaults let
// `hearth serve` run with no file at all, loaded from an optional TOML file and
// then overridden by HEARTH_* environment variables (nested keys joined with
// "_", e.g. auth.provider is HEARTH_AUTH_PROVIDER).
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the whole configuration of a Hearth instance.
type Config struct {
	// Listen is the address the HTTP server binds. Default ":3000".
	Listen string `toml:"listen"`
	// DataDir holds the SQLite database and other local state. Default "./data".
	DataDir string `toml:"data_dir"`
	// DatabaseURL selects the database: empty means SQLite at
	// DataDir/hearth.db, "sqlite:///path/file.db" another SQLite file, and
	// "postgres://…" PostgreSQL.
	DatabaseURL string `toml:"database_url"`
	// Domain is the part after @ in Lightning Addresses. Default "localhost:3000".
	Domain string `toml:"domain"`
	// PublicURL is the externally reachable base URL (LNURL callbacks).
	// Default "http://localhost:3000".
	PublicURL string `toml:"public_url"`
	// BitcoinAddressType is the default on-chain deposit address type. Default "p2wpkh".
	BitcoinAddressType string `toml:"bitcoin_address_type"`
	// InvoiceExpiry is the default expiry of new invoices. Default 12h.
	InvoiceExpiry Duration `toml:"invoice_expiry"`

	Auth    Auth    `toml:"auth"`
	HTTP    HTTP    `toml:"http"`
	Node    Node    `toml:"node"`
	Plugins Plugins `toml:"plugins"`
	Backup  Backup  `toml:"backup"`
	Log     Log     `toml:"log"`
	Metrics Metrics `toml:"metrics"`
	// Shutdown says how `hearth serve` stops on SIGTERM or SIGINT.
	Shutdown Shutdown `toml:"shutdown"`

	// The built-ins' own settings are their sections ([webhooks],
	// [onchain], [lnurl], [nostr], [node.lnd]: each plugin's Settings),
	// decoded by Load (Section).

	// sections are the built-ins' own sections that Load decoded.
	sections []Section
}

// Plugins configures the WebAssembly plugin host.
type Plugins struct {
	// CacheDir keeps compiled plugin modules across restarts. Default
	// DataDir/plugin-cache.
	CacheDir string `toml:"cache_dir"`
	// PoolSize bounds the warm instances of each plugin. Default 4.
	PoolSize int `toml:"pool_size"`
	// MaxWasmBytes caps an uploaded module. Default 32 MiB.
	MaxWasmBytes int64 `toml:"max_wasm_bytes"`
	// CPUShare is the share of one CPU each plugin may use over time, and
	// CPUBurst the CPU time one call may use (within its deadline): a
	// plugin over its share waits, one call over the burst is stopped.
	// Defaults 0.02 and 50ms.
	CPUShare float64  `toml:"cpu_share"`
	CPUBurst Duration `toml:"cpu_burst"`
	// AllowPrivateHosts lets plugins' outbound HTTP (and Lightning Address
	// lookups, over plain http) reach loopback, private and link-local
	// addresses. For tests and local development only. Default false.
	AllowPrivateHosts bool `toml:"allow_private_hosts"`
	// KVKeys is the most keys each plugin keeps in its key-value store.
	// Default 10000.
	KVKeys int `toml:"kv_keys"`
	// Catalog is the URL of a plugin index: a JSON array of {name,
	// version, description, url (the module), sha256, manifest}, which
	// GET /v1/plugins/catalog lists and POST /v1/plugins/install installs
	// from by name. Default none.
	Catalog string `toml:"catalog"`
}

// Backup configures the backups that `hearth serve` makes on its own;
// `hearth backup --to FILE` makes one by hand whatever is set here.
type Backup struct {
	// Every is the time between two scheduled backups; 0, the default,
	// schedules none. At least 1m when set.
	Every Duration `toml:"every"`
	// Dir is where scheduled backups are written, as
	// hearth-backup-<UTC time>.tar.gz beside a .sha256 file each. Default
	// DataDir/backups: a copy on the same disk survives a broken database,
	// not a broken disk, so point it at another one.
	Dir string `toml:"dir"`
	// Keep is how many scheduled backups are kept, the newest; older ones
	// in Dir are deleted after each new one. Default 7.
	Keep int `toml:"keep"`
}

// Auth configures how clients authenticate.
type Auth struct {
	// Provider is "jwt" (password sign-in, the default) or "oidc".
	Provider string `toml:"provider"`
	// TokenExpiry is the lifetime of tokens issued by sign-in. Default 24h.
	TokenExpiry Duration `toml:"token_expiry"`
	// SignInRate is how many sign-in attempts one client address may make per
	// minute, after a burst of SignInBurst. Defaults 6 and 10.
	SignInRate  int `toml:"sign_in_rate"`
	SignInBurst int `toml:"sign_in_burst"`

	OIDC OIDC `toml:"oidc"`
}

// OIDC configures the OpenID Connect provider.
type OIDC struct {
	// Issuer is the issuer URL whose discovery document and JWKS verify tokens.
	Issuer string `toml:"issuer"`
	// Audience is the expected "aud" of access tokens.
	Audience string `toml:"audience"`
	// RolesClaim names the claim that lists the user's roles. Default "roles".
	RolesClaim string `toml:"roles_claim"`
	// AdminRole is the role that makes a user the admin. Default "admin".
	AdminRole string `toml:"admin_role"`
	// ClientID is the dashboard's client id at the provider: a public client
	// (no secret) using the authorization code flow with PKCE, whose
	// redirect URI is the dashboard's own URL (public_url + "/"). Empty
	// leaves the dashboard without a way to sign in (API clients bring
	// their own tokens).
	ClientID string `toml:"client_id"`
	// Scopes are the scopes the dashboard asks for, space-separated.
	// Default "openid".
	Scopes string `toml:"scopes"`
}

// HTTP configures the HTTP server.
type HTTP struct {
	// MaxBodyBytes caps request bodies; larger ones get 413. Default 65536.
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// TrustProxy makes the client address come from X-Forwarded-For (its
	// first entry). Enable only behind a proxy that sets it. Default false.
	TrustProxy bool `toml:"trust_proxy"`
}

// Shutdown says how `hearth serve` stops on its first SIGTERM or SIGINT.
// It first drains: its health and readiness answer 503 and every answer
// closes its connection, while it still accepts and serves, for DrainDelay.
// Then it stops accepting, lets the requests in flight finish, stops its
// background work (each consumer saving its cursor, each lead giving up its
// lock) and exits 0, all within Timeout; past it, or at a second signal, it
// logs what was still running and exits 1.
type Shutdown struct {
	// DrainDelay is how long the server keeps serving, unready, before it
	// stops accepting: at least the interval of a load balancer's health
	// checks, so that it stops sending requests here first. Default 0 (no
	// balancer).
	DrainDelay Duration `toml:"drain_delay"`
	// Timeout bounds the rest of the stop, from the moment the server stops
	// accepting: the requests in flight, then the background work. Default
	// 30s.
	Timeout Duration `toml:"timeout"`
}

// Node selects the Lightning node backend.
type Node struct {
	// Backend is "embedded" (default), "lnd" or "cln".
	Backend string `toml:"backend"`
	// Network is the embedded node's chain: mainnet, testnet, signet,
	// regtest (default) or simnet. Real nodes report their own.
	Network string `toml:"network"`

	// The backends' own settings are their sections ([node.lnd]:
	// plugins/node/lnd.Config), decoded by Load (Section).
}

// Metrics configures the Prometheus metrics.
type Metrics struct {
	// Listen is the address of the listener that serves GET /metrics, in
	// the Prometheus text format, and nothing else; the API's listener
	// never serves it. Empty, the default, serves no metrics (they are
	// counted all the same, for the dashboard's GET /v1/system/stats).
	// Bind it where only the scraper reaches it ("127.0.0.1:9300", or a
	// private interface): it needs no credential.
	Listen string `toml:"listen"`
	// Off counts nothing: no listener (Listen must be empty), and the
	// admin Home's numbers (GET /v1/system/stats) answer metrics_off. For
	// an operator who wants none, and for measuring what counting costs
	// (docs/performance.md).
	Off bool `toml:"off"`
}

// Log configures logging.
type Log struct {
	// Level is debug, info, warn or error. Default info.
	Level string `toml:"level"`
	// Format is text or json. Default text.
	Format string `toml:"format"`
}

// Duration is a time.Duration written as "12h" or "90s" in TOML and env.
type Duration struct{ time.Duration }

// UnmarshalText parses a duration such as "24h".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as text.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Listen:             ":3000",
		DataDir:            "./data",
		Domain:             "localhost:3000",
		PublicURL:          "http://localhost:3000",
		BitcoinAddressType: "p2wpkh",
		InvoiceExpiry:      Duration{12 * time.Hour},
		Auth: Auth{
			Provider:    "jwt",
			TokenExpiry: Duration{24 * time.Hour},
			SignInRate:  6,
			SignInBurst: 10,
			OIDC:        OIDC{RolesClaim: "roles", AdminRole: "admin", Scopes: "openid"},
		},
		HTTP:    HTTP{MaxBodyBytes: 64 << 10},
		Node:    Node{Backend: "embedded", Network: "regtest"},
		Plugins: Plugins{PoolSize: 4, MaxWasmBytes: 32 << 20, CPUShare: 0.02, CPUBurst: Duration{50 * time.Millisecond}, KVKeys: 10_000},
		Backup:  Backup{Keep: 7},
		Log:     Log{Level: "info", Format: "text"},

		Shutdown: Shutdown{Timeout: Duration{30 * time.Second}},
	}
}

// Load reads the defaults, then the TOML file at path (when path is not
// empty), then the HEARTH_* variables from environ, and validates the
// result. The built-ins' sections are decoded the same way into their own
// values (Section); a key of the file that neither Config nor a section
// knows is an error.
func Load(path string, environ []string, sections ...Section) (Config, error) {
	c := Default()
	c.sections = sections
	if path != "" {
		md, err := toml.DecodeFile(path, &c)
		if err != nil {
			return c, fmt.Errorf("reading config %s: %w", path, err)
		}
		un, err := decodeSections(path, md, sections)
		if err != nil {
			return c, fmt.Errorf("reading config %s: %w", path, err)
		}
		if len(un) > 0 {
			return c, fmt.Errorf("reading config %s: unknown key %q", path, un[0])
		}
	}
	if err := applyEnv(&c, environ); err != nil {
		return c, err
	}
	if err := applySectionEnv(sections, environ); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate checks values that would otherwise fail late.
func (c *Config) Validate() error {
	var errs []error
	switch c.Auth.Provider {
	case "jwt":
	case "oidc":
		if c.Auth.OIDC.Issuer == "" || c.Auth.OIDC.Audience == "" {
			errs = append(errs, errors.New("auth.oidc.issuer and auth.oidc.audience are required with auth.provider = \"oidc\""))
		}
		if u, err := url.Parse(c.Auth.OIDC.Issuer); c.Auth.OIDC.Issuer != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "") {
			errs = append(errs, fmt.Errorf("auth.oidc.issuer: %q is not an http(s) URL", c.Auth.OIDC.Issuer))
		}
	default:
		errs = append(errs, fmt.Errorf("auth.provider: %q is not jwt or oidc", c.Auth.Provider))
	}
	if c.Auth.TokenExpiry.Duration <= 0 {
		errs = append(errs, errors.New("auth.token_expiry must be positive"))
	}
	if c.Auth.SignInRate <= 0 || c.Auth.SignInBurst <= 0 {
		errs = append(errs, errors.New("auth.sign_in_rate and auth.sign_in_burst must be positive"))
	}
	if c.HTTP.MaxBodyBytes <= 0 {
		errs = append(errs, errors.New("http.max_body_bytes must be positive"))
	}
	if c.Plugins.PoolSize <= 0 || c.Plugins.PoolSize > 64 {
		errs = append(errs, errors.New("plugins.pool_size must be between 1 and 64"))
	}
	if c.Plugins.MaxWasmBytes <= 0 {
		errs = append(errs, errors.New("plugins.max_wasm_bytes must be positive"))
	}
	if !(c.Plugins.CPUShare > 0 && c.Plugins.CPUShare <= 64) {
		errs = append(errs, errors.New("plugins.cpu_share must be above 0 and at most 64 (CPUs)"))
	}
	if u := c.Plugins.Catalog; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		errs = append(errs, errors.New("plugins.catalog must be an http(s) URL"))
	}
	if c.Plugins.KVKeys < 1 || c.Plugins.KVKeys > 100_000_000 {
		errs = append(errs, errors.New("plugins.kv_keys must be between 1 and 100000000"))
	}
	if c.Plugins.CPUBurst.Duration <= 0 {
		errs = append(errs, errors.New("plugins.cpu_burst must be positive"))
	}
	if every := c.Backup.Every.Duration; every != 0 && every < time.Minute {
		errs = append(errs, errors.New("backup.every must be 0 (no scheduled backups) or at least 1m"))
	}
	if c.Backup.Keep < 1 {
		errs = append(errs, errors.New("backup.keep must be at least 1"))
	}
	if c.Shutdown.Timeout.Duration <= 0 {
		errs = append(errs, errors.New("shutdown.timeout must be positive"))
	}
	if c.Shutdown.DrainDelay.Duration < 0 {
		errs = append(errs, errors.New("shutdown.drain_delay must not be negative"))
	}
	if c.Metrics.Off && c.Metrics.Listen != "" {
		errs = append(errs, errors.New("metrics.off counts nothing: metrics.listen must then be empty"))
	}
	if l := c.Metrics.Listen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			errs = append(errs, fmt.Errorf("metrics.listen: %q is not host:port: %w", l, err))
		} else if _, port, _ := net.SplitHostPort(l); l == c.Listen && port != "0" {
			errs = append(errs, errors.New("metrics.listen must differ from listen: the API's listener never serves the metrics"))
		}
	}
	if c.InvoiceExpiry.Duration <= 0 {
		errs = append(errs, errors.New("invoice_expiry must be positive"))
	}
	switch c.Node.Backend {
	case "embedded", "cln", "lnd": // a backend checks its own section (Section)
	default:
		errs = append(errs, fmt.Errorf("node.backend: %q is not embedded, lnd or cln", c.Node.Backend))
	}
	switch c.Node.Network {
	case "mainnet", "testnet", "signet", "regtest", "simnet":
	default:
		errs = append(errs, fmt.Errorf("node.network: %q is not mainnet, testnet, signet, regtest or simnet", c.Node.Network))
	}
	switch c.BitcoinAddressType {
	case "p2pkh", "p2sh", "p2wpkh", "p2tr":
	default:
		errs = append(errs, fmt.Errorf("bitcoin_address_type: %q is not p2pkh, p2sh, p2wpkh or p2tr", c.BitcoinAddressType))
	}
	if _, err := url.Parse(c.PublicURL); err != nil {
		errs = append(errs, fmt.Errorf("public_url: %w", err))
	}
	return errors.Join(errs...)
}

// PluginCacheDir returns the folder of compiled plugin modules.
func (c *Config) PluginCacheDir() string {
	if c.Plugins.CacheDir != "" {
		return c.Plugins.CacheDir
	}
	return filepath.Join(c.DataDir, "plugin-cache")
}

// BackupDir returns the folder of scheduled backups.
func (c *Config) BackupDir() string {
	if c.Backup.Dir != "" {
		return c.Backup.Dir
	}
	return filepath.Join(c.DataDir, "backups")
}

// SQLitePath returns the SQLite file to use, or "" when DatabaseURL selects
// PostgreSQL.
func (c *Config) SQLitePath() string {
	switch {
	case c.DatabaseURL == "":
		return filepath.Join(c.DataDir, "hearth.db")
	case strings.HasPrefix(c.DatabaseURL, "sqlite://"):
		return strings.TrimPrefix(c.DatabaseURL, "sqlite://")
	default:
		return ""
	}
}

// applyEnv sets every field whose HEARTH_* variable is present.
func applyEnv(c *Config, environ []string) error {
	env := hearthEnv(environ)
	if len(env) == 0 {
		return nil
	}
	return walk(reflect.ValueOf(c).Elem(), "HEARTH", env)
}

// hearthEnv returns the HEARTH_* variables of environ.
func hearthEnv(environ []string) map[string]string {
	env := make(map[string]string)
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "HEARTH_") {
			env[k] = v
		}
	}
	return env
}

var textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()

func walk(v reflect.Value, prefix string, env map[string]string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("toml")
		if key == "" {
			continue
		}
		name := prefix + "_" + strings.ToUpper(key)
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && !fv.Addr().Type().Implements(textUnmarshaler) {
			if err := walk(fv, name, env); err != nil {
				return err
			}
			continue
		}
		raw, ok := env[name]
		if !ok {
			continue
		}
		if err := set(fv, raw); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func set(fv reflect.Value, raw string) error {
	if u, ok := fv.Addr().Interface().(interface{ UnmarshalText([]byte) error }); ok {
		return u.UnmarshalText([]byte(raw))
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(raw)
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return err
		}
		fv.SetFloat(f)
	default:
		return fmt.Errorf("unsupported kind %s", fv.Kind())
	}
	return nil
}
