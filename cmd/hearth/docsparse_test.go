package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The docs test's reading of a page: which blocks run, which are skipped,
// and the mistakes in a page it refuses rather than let a block go unrun.
func TestDocBlocksAreRunOrMarked(t *testing.T) {
	t.Parallel()
	const page = "# A guide\n\n" +
		"<!-- docs-test: skip (needs a real lnd) -->\n" +
		"```sh\nHEARTH_NODE_BACKEND=lnd ./bin/hearth serve\n```\n\n" +
		"```sh\n# a comment alone\ncurl -s localhost:3000/v1/me \\\n  -H \"$H\"   # the wallet\n\nX=1; echo $X\n```\n\n" +
		"```json\n{\"curl\": \"not a command\"}\n```\n"
	blocks, err := readDocBlocks(writePage(t, page), "guide.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].skip != "needs a real lnd" || blocks[1].skip != "" || blocks[1].line != 8 {
		t.Fatalf("blocks %+v", blocks)
	}
	want := []docCommand{
		{line: 10, text: "curl -s localhost:3000/v1/me \\\n  -H \"$H\"   # the wallet"},
		{line: 13, text: "X=1; echo $X"},
	}
	if got := blocks[1].commands(); !reflect.DeepEqual(got, want) {
		t.Fatalf("commands %+v, want %+v", got, want)
	}

	refused := []struct{ name, page, want string }{
		{"curl in a block that never runs", "```\ncurl -s localhost:3000/v1/me\n```\n", "a curl command in a ``` block"},
		{"a marker before another kind of block", "<!-- docs-test: skip (why) -->\n```json\n{}\n```\n", "never runs"},
		{"a marker away from its block", "<!-- docs-test: skip (why) -->\n\n```sh\nls\n```\n", "not on the line just before"},
		{"a marker without a reason", "<!-- docs-test: skip -->\n```sh\nls\n```\n", "malformed"},
		{"a marker before nothing", "text\n<!-- docs-test: skip (why) -->\n", "before no block"},
		{"a block that never ends", "```sh\nls\n", "never ends"},
	}
	for _, c := range refused {
		if _, err := readDocBlocks(writePage(t, c.page), "guide.md"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// What the docs test pastes into a command, and what it refuses to guess.
func TestDocCommandsAreFilledIn(t *testing.T) {
	t.Parallel()
	m := readerMachine{hostPort: "localhost:4321", base: "http://localhost:4321", webhook: "http://127.0.0.1:9/hearth", npub: "npub1abc"}
	v := pasteValues{}
	v.learn(`{"id":"i-1","ln_invoice":{"bolt11":"lnbcrt1u1pxyz"},"invoice_id":"inv-7","key":"hk_secret"}`)
	cases := []struct{ in, want, err string }{
		{`curl -s localhost:3000/v1/me -H "$H"   # → {"bolt11":"lnbcrt1u1…"}`, `curl -s localhost:4321/v1/me -H "$H"   `, ""},
		{`curl -d '{"bolt11":"lnbcrt1u1…"}' localhost:3000/x/<invoice_id>`, `curl -d '{"bolt11":"lnbcrt1u1pxyz"}' localhost:4321/x/inv-7`, ""},
		{`BOB="Api-Key: hk_…"`, `BOB="Api-Key: hk_secret"`, ""},
		{`curl -X POST https://example.com/v1/me -d '{"nostr_pubkey":"npub1…her key…","url":"https://example.com/hearth"}'`,
			`curl -X POST http://localhost:4321/v1/me -d '{"nostr_pubkey":"npub1abc","url":"http://127.0.0.1:9/hearth"}'`, ""},
		{`echo "a # not a comment" \# # a comment`, `echo "a # not a comment" \# `, ""},
		{`TOKEN=…`, "", "does not know how to fill"},
		{`curl localhost:3000/v1/me/invoices/<payment_id>`, "", `no "payment_id" printed before`},
	}
	for _, c := range cases {
		got, err := m.fillIn(c.in, v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("fillIn(%q) = %q, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("fillIn(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if !isRead(`WALLET=$(curl -s localhost:3000/v1/me | sed 's/x/y/')`) || isRead(`curl -s -XPOST localhost:3000/v1/x`) ||
		isRead(`curl -s localhost:3000/v1/x -d '{}'`) || isRead(`./bin/hearth ledger check`) {
		t.Error("isRead tells reads from writes wrongly")
	}
}

func writePage(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
