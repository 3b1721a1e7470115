package host_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/host"
)

func TestParseManifest(t *testing.T) {
	t.Parallel()
	const base = `"name":"webhook","version":"1.2.3","abi":"hearth_v1"`
	for _, tc := range []struct {
		name, json, err string
	}{
		{"minimal", `{` + base + `}`, ""},
		{"full", `{` + base + `,"description":"d","scopes":["read:wallet","http:outbound:hooks.example.com","http:outbound:127.0.0.1:8080","nostr:sign"],
			"routes":[{"method":"GET","path":"/pay/*","public":true},{"method":"POST","path":"/admin","scope":"write:wallet"}],
			"events":["invoice.settled","payment.failed"],"config":{"url":{"type":"string","required":true},"pct":{"type":"integer","default":10}},
			"limits":{"memory_mib":64,"timeout_ms":5000}}`, ""},
		{"unknown field", `{` + base + `,"owner":"me"}`, "unknown field"},
		{"trailing data", `{` + base + `} {}`, "after the object"},
		{"bad name", `{"name":"Web Hook","version":"1.0.0","abi":"hearth_v1"}`, "name"},
		{"bad version", `{"name":"webhook","version":"1","abi":"hearth_v1"}`, "version"},
		{"other abi", `{"name":"webhook","version":"1.0.0","abi":"hearth_v3"}`, "abi"},
		{"unknown scope", `{` + base + `,"scopes":["read:everything"]}`, "unknown scope"},
		{"bad host", `{` + base + `,"scopes":["http:outbound:a b"]}`, "not a host"},
		{"scope twice", `{` + base + `,"scopes":["read:wallet","read:wallet"]}`, "twice"},
		{"route both", `{` + base + `,"routes":[{"method":"GET","path":"/x","public":true,"scope":"read:wallet"}]}`, "either"},
		{"route neither", `{` + base + `,"routes":[{"method":"GET","path":"/x"}]}`, "either"},
		{"route method", `{` + base + `,"routes":[{"method":"TRACE","path":"/x","public":true}]}`, "method"},
		{"route path", `{` + base + `,"routes":[{"method":"GET","path":"../x","public":true}]}`, "path"},
		{"unknown event", `{` + base + `,"events":["deleted"]}`, "unknown event"},
		{"a plugin's event", `{` + base + `,"events":["withdraw.claimed","invoice.settled"]}`, ""},
		{"emits", `{` + base + `,"emits":["webhook.sent","webhook.given_up"]}`, ""},
		{"emits another's", `{` + base + `,"emits":["withdraw.claimed"]}`, "starts with the plugin's name"},
		{"emits a bad type", `{` + base + `,"emits":["webhook.Sent"]}`, "a dot and a word"},
		{"emits the ledger's", `{"name":"invoice","version":"1.0.0","abi":"hearth_v1","emits":["invoice.settled"]}`, "the ledger's"},
		{"config type", `{` + base + `,"config":{"x":{"type":"object"}}}`, "type"},
		{"config default", `{` + base + `,"config":{"x":{"type":"integer","default":"ten"}}}`, "default"},
		{"memory", `{` + base + `,"limits":{"memory_mib":1024}}`, "memory_mib"},
		{"timeout", `{` + base + `,"limits":{"timeout_ms":-1}}`, "timeout_ms"},
		{"well-known", `{` + base + `,"scopes":["well-known:lnurlp","well-known:nostr.json"],
			"routes":[{"method":"GET","path":"/.well-known/lnurlp/*","public":true},{"method":"GET","path":"/.well-known/nostr.json","public":true}]}`, ""},
		{"well-known not asked", `{` + base + `,"routes":[{"method":"GET","path":"/.well-known/lnurlp/*","public":true}]}`, "needs the scope well-known:lnurlp"},
		{"well-known other asked", `{` + base + `,"scopes":["well-known:nostr.json"],"routes":[{"method":"GET","path":"/.well-known/lnurlp/*","public":true}]}`, "needs the scope"},
		{"well-known guarded", `{` + base + `,"scopes":["well-known:lnurlp"],"routes":[{"method":"GET","path":"/.well-known/lnurlp/*","scope":"read:wallet"}]}`, "must be public"},
		{"well-known root", `{` + base + `,"routes":[{"method":"GET","path":"/.well-known/*","public":true}]}`, "under /.well-known/"},
		{"well-known bad name", `{` + base + `,"scopes":["well-known:Bad Name"]}`, "not a well-known name"},
		{"admin route", `{` + base + `,"routes":[{"method":"GET","path":"/x","scope":"read:wallet","admin":true}]}`, "built-in's"},
		{"timers and metrics", `{` + base + `,"timers":[{"name":"poll","every":"5m"},{"name":"summary","cron":"0 8 * * *"}],
			"metrics":{"sent":{"type":"counter","help":"notifications sent"},"queue":{"type":"gauge"}}}`, ""},
		{"timer too often", `{` + base + `,"timers":[{"name":"poll","every":"1s"}]}`, "between 10s"},
		{"timer cron", `{` + base + `,"timers":[{"name":"poll","cron":"every day"}]}`, "cron"},
		{"metric type", `{` + base + `,"metrics":{"sent":{"type":"histogram"}}}`, "counter or gauge"},
		{"metric suffix", `{` + base + `,"metrics":{"sent_total":{"type":"counter"}}}`, "suffix"},
		{"metric host's", `{` + base + `,"metrics":{"calls":{"type":"counter"}}}`, "the host's"},
		{"metric name", `{` + base + `,"metrics":{"Sent":{"type":"counter"}}}`, "metric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := host.ParseManifest([]byte(tc.json))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if m.Limits.MemoryMiB == 0 || m.Limits.TimeoutMS == 0 {
					t.Fatalf("limits not defaulted: %+v", m.Limits)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want it to mention %q", err, tc.err)
			}
		})
	}
}

func TestRouteMatch(t *testing.T) {
	t.Parallel()
	m, err := host.ParseManifest([]byte(`{"name":"paywall","version":"1.0.0","abi":"hearth_v1","routes":[
		{"method":"GET","path":"/content/*","public":true},{"method":"POST","path":"/buy","scope":"write:transaction"},
		{"method":"GET","path":"/.well-known/lnurlp/*","public":true}],"scopes":["well-known:lnurlp"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, path string
		ok           bool
	}{
		{"GET", "/content", true}, {"GET", "/content/a/b", true}, {"GET", "/contents", false},
		{"POST", "/buy", true}, {"POST", "/buy/", true}, {"GET", "/buy", false}, {"POST", "/", false},
	} {
		if _, ok := m.Match(tc.method, tc.path); ok != tc.ok {
			t.Errorf("%s %s: match %v, want %v", tc.method, tc.path, ok, tc.ok)
		}
	}
	// A route under /.well-known/ is served at the root, never under the
	// plugin's prefix, and the root serves nothing else.
	for _, tc := range []struct {
		path          string
		under, atRoot bool
	}{
		{"/.well-known/lnurlp/alice", false, true}, {"/.well-known/lnurlp", false, true},
		{"/.well-known/nostr.json", false, false}, {"/content/x", true, false},
	} {
		_, under := m.Match("GET", tc.path)
		_, atRoot := m.MatchWellKnown("GET", tc.path)
		if under != tc.under || atRoot != tc.atRoot {
			t.Errorf("GET %s: under the prefix %v, at the root %v; want %v, %v", tc.path, under, atRoot, tc.under, tc.atRoot)
		}
	}
}

func TestGrantMustBeDeclared(t *testing.T) {
	t.Parallel()
	declared := []string{"read:wallet", "http:outbound:example.com"}
	g, err := host.ParseGrant([]string{"read:wallet", "http:outbound:example.com"}, declared)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Names(), " "); got != "read:wallet http:outbound:example.com" {
		t.Fatalf("names %q", got)
	}
	for _, bad := range [][]string{{"write:wallet"}, {"http:outbound:evil.com"}, {"nostr:sign"}} {
		if _, err := host.ParseGrant(bad, declared); err == nil {
			t.Errorf("granted %v", bad)
		}
	}
}

func TestValidateConfig(t *testing.T) {
	t.Parallel()
	schema := map[string]host.ConfigField{
		"url":     {Type: "string", Required: true},
		"percent": {Type: "integer", Default: 10},
		"on":      {Type: "boolean"},
	}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`{"url":"https://x"}`, `{"percent":10,"url":"https://x"}`, true},
		{`{"url":"u","percent":5,"on":true}`, `{"on":true,"percent":5,"url":"u"}`, true},
		{`{}`, "", false},
		{`{"url":"u","percent":1.5}`, "", false},
		{`{"url":"u","other":1}`, "", false},
		{`{"url":5}`, "", false},
		{`[]`, "", false},
	} {
		got, err := host.ValidateConfig(schema, []byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && string(got) != tc.want) {
			t.Errorf("%s: %s %v", tc.in, got, err)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"webhook","version":"1.2.3","abi":"hearth_v1","scopes":["read:wallet","http:outbound:a.b"],"routes":[{"method":"GET","path":"/x/*","public":true}],"events":["invoice.settled"],"config":{"u":{"type":"string","default":"x"}},"limits":{"memory_mib":8}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name":"a"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := host.ParseManifest(b)
		if err != nil {
			return
		}
		if !slices.Contains(host.ABIVersions, m.ABI) || m.Limits.MemoryMiB <= 0 || m.Limits.MemoryMiB > host.MaxMemoryMiB ||
			m.Limits.TimeoutMS <= 0 || m.Limits.TimeoutMS > host.MaxTimeoutMS {
			t.Fatalf("accepted an invalid manifest: %+v", m)
		}
		if _, err := host.ParseGrant(m.Scopes, m.Scopes); err != nil {
			t.Fatalf("declared scopes do not parse as a grant: %v", err)
		}
	})
}
