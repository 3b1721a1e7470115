package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsNameWhatTheServerDoes reads the README and docs/receiving.md for
// what a reader of Wallet Connect and of API keys must find there: the
// routes that change a connection or a key, list_transactions' cap and
// total_count, and no method the NIP dropped named as if it still were
// one (TestDocsRunAsWritten runs their examples).
func TestDocsNameWhatTheServerDoes(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, receiving := read("README.md"), read(filepath.Join("docs", "receiving.md"))
	nwc := section(t, receiving, "## Nostr Wallet Connect (NIP-47)")
	auth := section(t, readme, "## Authentication")
	for _, c := range []struct{ doc, text, want string }{
		{"docs/receiving.md (Wallet Connect)", nwc, "PATCH /v1/me/nwc/connections/{id}"},
		{"docs/receiving.md (Wallet Connect)", nwc, "/v1/nwc/connections/{id}"},
		{"docs/receiving.md (Wallet Connect)", nwc, "-X PATCH localhost:3000/v1/me/nwc/connections/<id>"},
		{"docs/receiving.md (Wallet Connect)", nwc, "total_count"},
		{"docs/receiving.md (Wallet Connect)", nwc, "at most 50"},
		{"docs/receiving.md (Wallet Connect)", nwc, "left NIP-47"},
		{"docs/receiving.md (Wallet Connect)", nwc, "answered to every connection"},
		{"docs/receiving.md (Wallet Connect)", nwc, "in flight and may still settle"},
		{"README.md (Authentication)", auth, "PATCH /v1/me/api-keys/{id}"},
		{"README.md (Authentication)", auth, "/v1/api-keys/{id}"},
		{"README.md (Authentication)", auth, "-X PATCH localhost:3000/v1/me/api-keys/<id>"},
		{"README.md (Authentication)", auth, "stays used"},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s does not say %q", c.doc, c.want)
		}
	}
	if strings.Contains(readme, "every method of the NIP") {
		t.Errorf("README.md claims every method of the NIP: name the methods served")
	}
}

// section is doc's text from the heading head to the next heading of its
// level.
func section(t *testing.T, doc, head string) string {
	t.Helper()
	i := strings.Index(doc, head+"\n")
	if i < 0 {
		t.Fatalf("no heading %q", head)
	}
	level := head[:strings.IndexByte(head, ' ')+1]
	rest := doc[i+len(head):]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
