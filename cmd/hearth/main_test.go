package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// syncWriter is an io.Writer safe for the server's goroutines that lets a
// test wait for some output to appear.
type syncWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // holds a token after each write, coalesced
}

func newSyncWriter() *syncWriter { return &syncWriter{changed: make(chan struct{}, 1)} }

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, err := w.buf.Write(p)
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits until the output matches re and returns the submatches. It
// gives up when stopped is closed (the command returned) or after timeout.
func (w *syncWriter) waitFor(re *regexp.Regexp, stopped <-chan struct{}, timeout time.Duration) ([]string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if m := re.FindStringSubmatch(w.String()); m != nil {
			return m, nil
		}
		select {
		case <-w.changed:
		case <-stopped:
			if m := re.FindStringSubmatch(w.String()); m != nil {
				return m, nil
			}
			return nil, errors.New("the command returned before writing " + re.String())
		case <-deadline.C:
			return nil, errors.New("timed out waiting for " + re.String())
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "hearth dev") {
		t.Fatalf("version printed %q, want it to start with %q", out.String(), "hearth dev")
	}
}

func TestCommandErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope.toml")
	cases := []struct {
		name    string
		args    []string
		environ []string
		want    string // a part of the error
	}{
		{"no command", nil, nil, "no command"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"missing config file", []string{"--config", missing, "migrate"}, nil, missing},
		{"invalid auth provider", []string{"migrate"}, []string{"HEARTH_AUTH_PROVIDER=magic", "HEARTH_DATA_DIR=" + t.TempDir()}, "auth.provider"},
		{"unknown flag", []string{"--nope", "version"}, nil, "nope"},
		{"the guard with options", []string{"--config", missing, "cln-guard"}, nil, "cln-guard takes no options"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			err := run(context.Background(), c.args, &out, c.environ)
			if err == nil {
				t.Fatalf("run(%q) succeeded, want an error; output %q", c.args, out.String())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run(%q) = %v, want an error mentioning %q", c.args, err, c.want)
			}
		})
	}
}

// lightningd runs its plugins with no arguments (but --developer in
// developer mode) and LIGHTNINGD_PLUGIN=1:
// hearth is then the invoice guard, as `hearth cln-guard` is anywhere.
// Nothing else is, whatever the environment.
func TestGuardCommand(t *testing.T) {
	plugin := []string{"PATH=/bin", "LIGHTNINGD_PLUGIN=1"}
	for _, c := range []struct {
		args, environ []string
		want          bool
	}{
		{[]string{"cln-guard"}, nil, true},
		{[]string{"cln-guard"}, plugin, true},
		{nil, plugin, true},
		{[]string{"--developer"}, plugin, true}, // a lightningd in developer mode
		{[]string{"--developer"}, nil, false},
		{nil, nil, false},
		{nil, []string{"LIGHTNINGD_PLUGIN=0"}, false},
		{[]string{"serve"}, plugin, false},
		{[]string{"cln-guard", "--help"}, nil, false},
		{[]string{"--config", "x.toml", "cln-guard"}, nil, false},
	} {
		if got := guardCommand(c.args, c.environ); got != c.want {
			t.Errorf("guardCommand(%q, %q) = %v, want %v", c.args, c.environ, got, c.want)
		}
	}
}

func TestHelpIsNotAnError(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Usage: hearth") {
		t.Fatalf("help printed %q", out.String())
	}
}

func TestMigrateSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	environ := []string{"HEARTH_DATA_DIR=" + dir}
	for i := range 2 {
		out := newSyncWriter()
		if err := run(context.Background(), []string{"migrate"}, out, environ); err != nil {
			t.Fatalf("migrate #%d: %v; output:\n%s", i+1, err, out)
		}
		if !strings.Contains(out.String(), "migrations applied") {
			t.Fatalf("migrate #%d logged %q", i+1, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "hearth.db")); err != nil {
			t.Fatalf("after migrate #%d: %v", i+1, err)
		}
	}
}

func TestMigrateWithConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "hearth.toml")
	if err := os.WriteFile(path, []byte("data_dir = "+tomlString(dir)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := newSyncWriter()
	if err := run(context.Background(), []string{"--config", path, "migrate"}, out, nil); err != nil {
		t.Fatalf("migrate: %v; output:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); err != nil {
		t.Fatal(err)
	}
}

func tomlString(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a valid TOML basic string
	return string(b)
}

func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set", storetest.PostgresEnv)
	}
	ctx := context.Background()
	admin, err := store.Open(ctx, store.Options{PostgresURL: base, MaxConns: 1})
	if err != nil {
		t.Fatalf("connecting to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	buf := make([]byte, 8)
	rand.Read(buf)
	schema := "hearth_cmdtest_" + hex.EncodeToString(buf)
	if _, err := admin.W.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("creating schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.W.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	environ := []string{"HEARTH_DATABASE_URL=" + u.String(), "HEARTH_DATA_DIR=" + t.TempDir()}
	for i := range 2 {
		out := newSyncWriter()
		if err := run(ctx, []string{"migrate"}, out, environ); err != nil {
			t.Fatalf("migrate #%d: %v; output:\n%s", i+1, err, out)
		}
		if !strings.Contains(out.String(), "database=postgres") {
			t.Fatalf("migrate #%d did not use PostgreSQL; output %q", i+1, out)
		}
	}
	var tables int
	if err := admin.W.QueryRowContext(ctx,
		"SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = 'api_keys'",
		schema).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 1 {
		t.Fatalf("schema %s has no api_keys table after migrate", schema)
	}
}

// routes lists every route of the API, as the OpenAPI document spells it.
var routes = []struct{ method, path string }{
	{"GET", "/v1/system/setup"},
	{"POST", "/v1/system/mark-welcome-complete"},
	{"GET", "/v1/system/health"},
	{"GET", "/v1/system/ready"},
	{"GET", "/v1/system/version"},
	{"GET", "/v1/openapi.json"},
	{"GET", "/docs"},
	{"POST", "/v1/auth/sign-up"},
	{"POST", "/v1/auth/sign-in"},
	{"POST", "/v1/auth/change-password"},
	{"GET", "/v1/me"},
	{"GET", "/v1/me/balance"},
	{"POST", "/v1/me/api-keys"},
	{"GET", "/v1/me/api-keys"},
	{"GET", "/v1/me/api-keys/{id}"},
	{"DELETE", "/v1/me/api-keys/{id}"},
	{"POST", "/v1/wallets"},
	{"GET", "/v1/wallets"},
	{"GET", "/v1/wallets/{id}"},
	{"DELETE", "/v1/wallets/{id}"},
	{"POST", "/v1/api-keys"},
	{"GET", "/v1/api-keys"},
	{"GET", "/v1/api-keys/{id}"},
	{"DELETE", "/v1/api-keys/{id}"},
	// The built-in nwc plugin's.
	{"POST", "/v1/me/nwc/connections"},
	{"GET", "/v1/me/nwc/connections"},
	{"GET", "/v1/me/nwc/connections/{id}"},
	{"DELETE", "/v1/me/nwc/connections/{id}"},
	{"POST", "/v1/nwc/connections"},
	{"GET", "/v1/nwc/connections"},
	{"GET", "/v1/nwc/connections/{id}"},
	{"DELETE", "/v1/nwc/connections/{id}"},
	// The built-in withdraw plugin's.
	{"POST", "/v1/me/withdraw-links"},
	{"GET", "/v1/me/withdraw-links"},
	{"GET", "/v1/me/withdraw-links/{id}"},
	{"DELETE", "/v1/me/withdraw-links/{id}"},
	{"POST", "/v1/withdraw-links"},
	{"GET", "/v1/withdraw-links"},
	{"GET", "/v1/withdraw-links/{id}"},
	{"DELETE", "/v1/withdraw-links/{id}"},
	{"GET", "/lnurlw/{token}"},
	{"GET", "/lnurlw/{token}/callback"},
}

var listeningRE = regexp.MustCompile(`msg="hearth listening" address=(http://\S+)`)

func TestServeSmoke(t *testing.T) {
	t.Parallel()
	environ := []string{"HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR=" + t.TempDir()}
	out := newSyncWriter()
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		runErr = run(ctx, []string{"serve"}, out, environ)
	}()
	// Registered after TempDir, so it runs first: the server is gone before
	// its folder is removed, whichever way the test ends.
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop")
		}
	})

	m, err := out.waitFor(listeningRE, stopped, 30*time.Second)
	if err != nil {
		t.Fatalf("%v; run error %v; output:\n%s", err, runErrIfStopped(stopped, &runErr), out)
	}
	base := m[1]
	c := &client{t: t, base: base, http: &http.Client{Timeout: 10 * time.Second}}
	defer c.http.CloseIdleConnections()

	// First run: nothing done yet.
	jwt := map[string]any{"provider": "jwt"}
	c.expectJSON(c.call("GET", "/v1/system/setup", "", ""), 200,
		map[string]any{"welcome_complete": false, "sign_up_complete": false, "domain": "localhost:3000", "auth": jwt})
	c.expect(c.call("POST", "/v1/system/mark-welcome-complete", "", ""), 204)
	c.expectJSON(c.call("GET", "/v1/system/setup", "", ""), 200,
		map[string]any{"welcome_complete": true, "sign_up_complete": false, "domain": "localhost:3000", "auth": jwt})

	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	if tok.Token == "" {
		t.Fatal("sign-up returned no token")
	}
	c.expectJSON(c.call("GET", "/v1/system/setup", "", ""), 200,
		map[string]any{"welcome_complete": true, "sign_up_complete": true, "domain": "localhost:3000", "auth": jwt})

	var me struct {
		UserID string `json:"user_id"`
	}
	c.decode(c.expect(c.call("GET", "/v1/me", "", tok.Token), 200), &me)
	if me.UserID != "admin" {
		t.Fatalf("GET /v1/me user_id = %q, want admin", me.UserID)
	}
	c.expect(c.call("GET", "/v1/me", "", ""), 401)

	c.expectJSON(c.call("GET", "/v1/system/health", "", ""), 200,
		map[string]any{"database": "Operational", "ln_provider": "Operational", "is_healthy": true})
	c.expectJSON(c.call("GET", "/v1/system/version", "", ""), 200,
		map[string]any{"version": "dev", "build_time": "unknown"})

	// The OpenAPI document names every route, and every documented route is
	// served.
	res := c.expect(c.call("GET", "/v1/openapi.json", "", ""), 200)
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("openapi.json Content-Type = %q", ct)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	c.decode(res, &doc)
	if doc.OpenAPI == "" {
		t.Fatalf("openapi.json has no openapi key: %.200s", res.body)
	}
	for _, rt := range routes {
		if doc.Paths[rt.path][strings.ToLower(rt.method)] == nil {
			t.Errorf("openapi.json lacks %s %s", rt.method, rt.path)
		}
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(documented)
	if len(documented) < len(routes) {
		t.Fatalf("openapi.json documents %d operations, want at least %d", len(documented), len(routes))
	}
	for _, op := range documented {
		method, path, _ := strings.Cut(op, " ")
		path = strings.ReplaceAll(path, "{id}", "00000000-0000-4000-8000-000000000000")
		// No credential and no body: the answer may be any error but "no
		// such route" or "method not allowed".
		r := c.call(method, path, "", "")
		var p struct{ Reason string }
		_ = json.Unmarshal(r.body, &p)
		if r.code == http.StatusMethodNotAllowed || (r.code == http.StatusNotFound && p.Reason == "No such route") {
			t.Errorf("documented %s is not served: %d %s", op, r.code, r.body)
		}
	}

	res = c.expect(c.call("GET", "/docs", "", ""), 200)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("/docs Content-Type = %q", ct)
	}

	// Graceful shutdown: run returns nil once ctx is cancelled.
	c.http.CloseIdleConnections()
	cancel()
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatalf("run did not return after cancel; output:\n%s", out)
	}
	if runErr != nil {
		t.Fatalf("run returned %v after cancel; output:\n%s", runErr, out)
	}
	if !strings.Contains(out.String(), "shutting down") {
		t.Fatalf("no shutdown log; output:\n%s", out)
	}
}

func runErrIfStopped(stopped <-chan struct{}, err *error) error {
	select {
	case <-stopped:
		return *err
	default:
		return nil
	}
}

// client drives the server over real HTTP.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

type reply struct {
	method, path string
	code         int
	header       http.Header
	body         []byte
}

// call sends a request; a body is sent as application/json, a token as a
// bearer credential.
func (c *client) call(method, path, body, token string) reply {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return reply{method: method, path: path, code: res.StatusCode, header: res.Header, body: b}
}

func (c *client) expect(r reply, code int) reply {
	c.t.Helper()
	if r.code != code {
		c.t.Fatalf("%s %s = %d, want %d; body %s", r.method, r.path, r.code, code, r.body)
	}
	return r
}

func (c *client) decode(r reply, v any) {
	c.t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		c.t.Fatalf("%s %s: decoding %q: %v", r.method, r.path, r.body, err)
	}
}

// expectJSON checks the status and that the body is exactly want.
func (c *client) expectJSON(r reply, code int, want map[string]any) {
	c.t.Helper()
	c.expect(r, code)
	var got map[string]any
	c.decode(r, &got)
	if !reflect.DeepEqual(got, want) {
		c.t.Fatalf("%s %s = %s, want %v", r.method, r.path, r.body, want)
	}
}
