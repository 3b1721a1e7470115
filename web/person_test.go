package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The harness of the browser tests: Chromium, a watcher of what the page
// must never do, and a person who acts and waits as a person would.

// artifactsDir is where screenshots go: $HEARTH_WEB_ARTIFACTS, else a
// temporary folder.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(artifactsEnv)
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no Chromium for the dashboard's browser test: set %s or run scripts/chromium.sh", chromiumEnv)
	}
	t.Skipf("dashboard browser test skipped: no Chromium (set %s or run scripts/chromium.sh)", chromiumEnv)
	return ""
}

// watcher records what the page must never do: log an error, throw, open
// a dialog, or ask another host for anything.
type watcher struct {
	mu     sync.Mutex
	origin string // scheme://host:port of the server
	// provider, when set, is the origin of the OpenID Connect provider
	// the dashboard may also reach (its policy allows it).
	provider string
	problems []string
	requests []string
	// resumes holds the Last-Event-ID of each request of the event
	// stream ("" when it had none).
	resumes []string
	// expectFailures is set while the test cuts the network on purpose:
	// failed loads are expected then.
	expectFailures bool
}

func (w *watcher) add(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

func (w *watcher) setExpectFailures(v bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expectFailures = v
}

// take waits until a problem that contains part is recorded, and removes
// it: the watcher's own check, with a probe that must be caught.
func (w *watcher) take(t *testing.T, part string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		w.mu.Lock()
		for i, p := range w.problems {
			if strings.Contains(p, part) {
				w.problems = append(w.problems[:i], w.problems[i+1:]...)
				w.mu.Unlock()
				return
			}
		}
		got := strings.Join(w.problems, "; ")
		w.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not catch %q (it holds: %s)", part, got)
		}
		<-tick.C
	}
}

// drop forgets every problem caught so far that contains part: one a page
// may rightly repeat (Home reads its balance again at each live event).
func (w *watcher) drop(part string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.problems[:0]
	for _, p := range w.problems {
		if !strings.Contains(p, part) {
			kept = append(kept, p)
		}
	}
	w.problems = kept
}

func (w *watcher) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Error(p)
	}
}

func (w *watcher) listen(ctx context.Context) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				w.add("console.%s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			w.add("uncaught exception: %s (%s:%d)", msg, d.URL, d.LineNumber)
		case *cdplog.EventEntryAdded:
			e := ev.Entry
			w.mu.Lock()
			expected := w.expectFailures && e.Source == cdplog.EntrySourceNetwork
			w.mu.Unlock()
			if (e.Level == cdplog.EntryLevelError || e.Level == cdplog.EntryLevelWarning) && !expected {
				w.add("browser log (%s, %s): %s %s", e.Source, e.Level, e.Text, e.URL)
			}
		case *page.EventJavascriptDialogOpening:
			w.add("a %s dialog opened: %q", ev.Type, ev.Message)
			go func() { // never a command inside the listener
				_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}()
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(ev.Request.URL)
			w.mu.Lock()
			w.requests = append(w.requests, ev.Request.URL)
			if err == nil && u.Path == "/v1/me/events" {
				last, _ := ev.Request.Headers["Last-Event-ID"].(string)
				w.resumes = append(w.resumes, last)
			}
			w.mu.Unlock()
			switch {
			case err != nil:
				w.add("request to an unparsable URL %q", ev.Request.URL)
			case u.Scheme == "data" || u.Scheme == "blob":
			case w.provider != "" && u.Scheme+"://"+u.Host == w.provider && !strings.Contains(ev.Request.URL, "eyJ"):
			case u.Scheme+"://"+u.Host != w.origin:
				w.add("request to another host: %s", ev.Request.URL)
			case u.Path == "/x":
				w.add("the XSS probe's image was requested: %s", ev.Request.URL)
			case strings.Contains(u.RawQuery, "token") || strings.Contains(ev.Request.URL, "eyJ") || strings.Contains(ev.Request.URL, "hk_"):
				w.add("a credential in a URL: %s", ev.Request.URL)
			}
		case *network.EventResponseReceived:
			w.mu.Lock()
			expected := w.expectFailures
			w.mu.Unlock()
			if ev.Response.Status >= 400 && !expected {
				w.add("%s answered %d", ev.Response.URL, int(ev.Response.Status))
			}
		}
	})
}

// openDashboard starts a browser at 1280 × 900 in English for timeout,
// with a watcher on h's origin, as the person who will drive it: the
// start every dashboard test shares.
func openDashboard(t *testing.T, chromium, origin string, timeout time.Duration) *person {
	t.Helper()
	ctx := startBrowser(t, chromium, timeout, chromedp.WindowSize(1280, 900), chromedp.Flag("lang", "en-US"))
	w := &watcher{origin: origin}
	if err := w.listen(ctx); err != nil {
		t.Fatal(err)
	}
	p := &person{t: t, ctx: ctx, artifacts: artifactsDir(t), w: w}
	p.do("start the browser", call(network.Enable, network.EnableParams{}), call(cdplog.Enable, cdp.Empty{}),
		call(runtime.Enable, cdp.Empty{}))
	return p
}

// person drives the browser: each step waits on what a person would see,
// within stepTimeout; a failed step saves a screenshot and fails the test.
type person struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
	w         *watcher
}

func (p *person) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail(step, err)
	}
}

// get runs one action that returns a value.
func get[T any](p *person, step string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.fail(step, err)
	}
	return v
}

// call sends one protocol command as a step.
func call[P, R any](cmd cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cmd, params)
		return err
	})
}

func (p *person) fail(step string, err error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	shot, _ := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if len(shot) > 0 {
		// A subtest's name has a slash: one file name all the same.
		path := filepath.Join(p.artifacts, "failure-"+strings.ReplaceAll(p.t.Name(), "/", "-")+".png")
		_ = os.WriteFile(path, shot, 0o644)
		p.t.Logf("screenshot of the failure: %s", path)
	}
	p.w.check(p.t)
	p.t.Fatalf("%s: %v\npage text:\n%s", step, err, text)
}

// screenshot saves the whole page as name.png in the artefacts folder.
func (p *person) screenshot(name string) {
	p.t.Helper()
	shot := get(p, "screenshot "+name, chromedp.FullScreenshot(100))
	path := filepath.Join(p.artifacts, name+".png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
}

// XPath selectors by what a person reads.
func button(text string) string { return fmt.Sprintf(`//button[normalize-space()=%q]`, text) }
func link(text string) string   { return fmt.Sprintf(`//a[normalize-space()=%q]`, text) }
func heading(text string) string {
	return fmt.Sprintf(`//h1[normalize-space()=%q]`, text)
}
func input(label string) string {
	return fmt.Sprintf(`//*[@id=//label[normalize-space()=%q]/@for]`, label)
}
func text(tag, s string) string { return fmt.Sprintf(`//%s[normalize-space()=%q]`, tag, s) }

func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.WaitVisible(sel), chromedp.Click(sel))
}

func typeIn(label, value string) chromedp.Action[chromedp.Void] {
	sel := input(label)
	return chromedp.Steps(chromedp.WaitVisible(sel), chromedp.Evaluate[chromedp.Void](labelled(label)+`.value = ''`), chromedp.SendKeys(sel, value))
}

// labelled is a JavaScript expression of the control labelled label.
func labelled(label string) string {
	return fmt.Sprintf(`document.getElementById([...document.querySelectorAll('label')].find((l) => l.textContent.trim() === %s).htmlFor)`, jsString(label))
}

// choose picks an option of the select labelled label and tells the page,
// as a person's choice would (the change event).
func choose(label, value string) chromedp.Action[chromedp.Void] {
	js := fmt.Sprintf(`(() => {
		const s = %s;
		s.value = %s;
		s.dispatchEvent(new Event('change', { bubbles: true }));
	})()`, labelled(label), jsString(value))
	return chromedp.Steps(chromedp.WaitVisible(input(label)), chromedp.Evaluate[chromedp.Void](js))
}

func visible(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(sel) }

func balanceIs(s string) chromedp.Action[chromedp.Void] {
	return visible(fmt.Sprintf(`//p[@id='balance'][normalize-space()=%q]`, s))
}

// checkLabels checks the view shown: every control has a visible label
// tied to it, every button a name.
func checkLabels(p *person) {
	p.t.Helper()
	bad := get(p, "check the labels", chromedp.Evaluate[[]string](`(() => {
		const bad = [];
		for (const c of document.querySelectorAll('input, select, textarea')) {
			if (c.type === 'hidden' || c.closest('.offscreen')) continue;
			const l = c.id && document.querySelector('label[for="' + CSS.escape(c.id) + '"]');
			if (!l || !l.textContent.trim() || l.getClientRects().length === 0) bad.push('a ' + c.tagName.toLowerCase() + ' named ' + (c.name || c.id) + ' has no visible label');
		}
		for (const b of document.querySelectorAll('button')) {
			if (!b.textContent.trim()) bad.push('a button without text');
		}
		return bad;
	})()`))
	for _, b := range bad {
		p.t.Errorf("%s", b)
	}
}

// startBrowser starts a headless Chromium for the test and returns its
// context, which ends after timeout (the browser itself is started before,
// without a deadline, as chromedp asks).
func startBrowser(t *testing.T, chromium string, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-gpu", true),
	)
	opts = append(opts, extra...)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", chromium, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	return ctx
}

func checkNoOverflow(p *person) {
	p.t.Helper()
	wide := get(p, "measure", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if wide {
		p.t.Error("the page is wider than the 390 px screen")
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// waitDownload waits for a file whose name begins with prefix to be
// saved whole in dir, and returns its text.
func waitDownload(t *testing.T, dir, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), prefix) || strings.HasSuffix(e.Name(), ".crdownload") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err == nil && len(b) > 0 {
				return string(b)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal(fmt.Errorf("no file %s… was downloaded", prefix))
		}
		<-tick.C
	}
}
