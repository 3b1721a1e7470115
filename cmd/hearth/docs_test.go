package main

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// The README's quick start and every shell example of the guides in docs/
// run as a reader runs them, in order, against a fresh `hearth serve` (SQLite,
// the embedded node) from a clone of the repository of their own: each
// document in one bash, commands pasted one at a time with the values a
// reader pastes (docspaste_test.go), every curl answer checked as `curl -f`
// checks it, every command's exit status checked. A block that cannot run
// here says why in the document (docsblocks_test.go) and is listed.
func TestDocsRunAsWritten(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the docs test runs the examples as a reader does, with %s: %v", tool, err)
		}
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs := docsToRun(t, repo)

	clone := t.TempDir()
	cloneForReader(t, repo, clone)
	relay := nostrtest.StartRelay(t)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(hook.Close)
	_, c := serveProcess(t, []string{
		"HEARTH_DATA_DIR=" + filepath.Join(clone, "data"),
		"HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true", // the webhook endpoint and the relay are on loopback
		"HEARTH_NWC_RELAYS=" + relay.URL(),
		"HEARTH_RATES_FIXED=EUR:87123.45", // docs/rates.md: a price by hand, offline
	})
	u, err := url.Parse(c.base)
	if err != nil {
		t.Fatal(err)
	}
	reader := readerMachine{
		hostPort: "localhost:" + u.Port(),
		base:     "http://localhost:" + u.Port(),
		webhook:  hook.URL + "/hearth",
		npub:     testNpub(t),
	}
	environ := append(readerEnviron(), serverProcessEnv+"=1", "HEARTH_PUBLIC_URL="+reader.base)
	values := pasteValues{}

	var skipped []string
	ran := 0
	for i, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			sh := startDocShell(t, clone, environ)
			for _, b := range doc.blocks {
				if b.skip != "" {
					skipped = append(skipped, b.where()+" ("+b.skip+")")
					continue
				}
				ran += runDocBlock(t, sh, b, reader, values)
			}
			if i == 0 {
				// The guides assume the README's quick start: its token,
				// and an API key of the admin's wallet as $KEY.
				environ = append(environ, guideCredentials(t, c, sh)...)
			}
		})
	}
	t.Logf("ran %d commands; skipped %d blocks, marked so in the docs:\n\t%s", ran, len(skipped), strings.Join(skipped, "\n\t"))
}

// docToRun is one document and its shell blocks.
type docToRun struct {
	name   string
	blocks []docBlock
}

// docsToRun reads the README, then every guide in docs/, in that order.
func docsToRun(t *testing.T, repo string) []*docToRun {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(guides)
	var docs []*docToRun
	for _, path := range append([]string{filepath.Join(repo, "README.md")}, guides...) {
		name, err := filepath.Rel(repo, path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := readDocBlocks(path, name)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &docToRun{name: name, blocks: blocks})
	}
	return docs
}

// runDocBlock runs a block's commands in order and stops at the first that
// fails, which fails the test. It returns how many commands ran.
func runDocBlock(t *testing.T, sh *docShell, b docBlock, reader readerMachine, values pasteValues) int {
	t.Helper()
	n := 0
	for _, c := range b.commands() {
		where := b.file + ":" + strconv.Itoa(c.line)
		cmd, err := reader.fillIn(c.text, values)
		if err != nil {
			t.Errorf("%s: %v\n\t%s", where, err, c.text)
			return n
		}
		r, err := sh.run(cmd, 5*time.Minute)
		if err != nil {
			t.Fatalf("%s: %v\n\t%s", where, err, cmd)
		}
		reads := 1
		if r.code != 0 && isRead(cmd) && httpFailureRE.MatchString(r.stderr) {
			r, reads = readAgain(t, sh, cmd, r)
		}
		n++
		if r.code != 0 {
			t.Errorf("%s: exit status %d\n\t%s\nstdout:\n%s\nstderr:\n%s", where, r.code, c.text, tail(r.stdout), tail(r.stderr))
			return n
		}
		t.Logf("%s: %s\n\t→ %s (%d read(s))", where, firstLine(cmd), firstLine(r.stdout), reads)
		values.learn(r.stdout)
	}
	return n
}

// firstLine is the first line of s, cut short, for the log.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// readAgain pastes a read again while it fails over HTTP, for a while: what
// it reads may be coming about (the paywall's content unlocks when the
// plugin has heard of the payment).
func readAgain(t *testing.T, sh *docShell, cmd string, r shellResult) (shellResult, int) {
	t.Helper()
	reads := 1
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for r.code != 0 && httpFailureRE.MatchString(r.stderr) {
		select {
		case <-deadline.C:
			return r, reads
		case <-tick.C:
		}
		again, err := sh.run(cmd, time.Minute)
		if err != nil {
			t.Fatalf("%v\n\t%s", err, cmd)
		}
		r = again
		reads++
	}
	return r, reads
}

// where names the block as a reader finds it.
func (b docBlock) where() string { return b.file + ":" + strconv.Itoa(b.line) }

// guideCredentials are the token the README's quick start signed up with,
// as $HEARTH_TOKEN, and a new API key of the admin's wallet, as $KEY.
func guideCredentials(t *testing.T, c *client, readme *docShell) []string {
	t.Helper()
	token, err := readme.variable("HEARTH_TOKEN")
	if err != nil || token == "" {
		t.Fatalf("the README's quick start left no $HEARTH_TOKEN (%v)", err)
	}
	c = &client{t: t, base: c.base, http: c.http}
	var key struct{ Key string }
	c.decode(c.expect(c.call("POST", "/v1/me/api-keys",
		`{"name":"docs","permissions":["read:wallet","write:wallet","read:transaction","write:transaction"]}`, token), 201), &key)
	return []string{"HEARTH_TOKEN=" + token, "KEY=" + key.Key}
}

// cloneForReader makes dst a clone of the repository as a reader has it:
// its folders, and links to its files, with no bin/ or data/ of a reader's
// own; bin/hearth is this test binary, which runs as hearth in a docs
// shell. What the docs build or write stays in dst.
func cloneForReader(t *testing.T, repo, dst string) {
	t.Helper()
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repo, path)
		if err != nil || rel == "." {
			return err
		}
		if d.IsDir() {
			if rel == "bin" || rel == "data" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return os.Mkdir(filepath.Join(dst, rel), 0o755)
		}
		return os.Symlink(path, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatalf("cloning the repository for the reader: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dst, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dst, "bin", "hearth")); err != nil {
		t.Fatal(err)
	}
}

// readerEnviron is this process's environment without Hearth's settings,
// which a reader following the README has not set.
func readerEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") && !strings.HasPrefix(kv, "KEY=") {
			env = append(env, kv)
		}
	}
	return env
}

// testNpub is the Nostr key a reader would paste: a valid one.
func testNpub(t *testing.T) string {
	t.Helper()
	pub, err := gonostr.GetPublicKey(strings.Repeat("0", 63) + "1")
	if err != nil {
		t.Fatal(err)
	}
	npub, err := nip19.EncodePublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return npub
}
