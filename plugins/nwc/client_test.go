package nwc_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip04"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// app is a NIP-47 client as an app is one: it reads a connection URI,
// subscribes on the relay to what the wallet sends its key, and sends
// requests encrypted with the URI's secret (NIP-44 v2, or NIP-04 with no
// encryption tag as the NIP's first version does). Built with go-nostr's
// events and encryption; the websocket is written here (go-nostr's Relay
// races with itself when closed).
type app struct {
	t                *testing.T
	relay, wallet    string
	secret, pub, lud string
	conn             *websocket.Conn
	cancel           context.CancelFunc
	mu               sync.Mutex
	got              []*gonostr.Event
	ok               map[string]string
	eose             bool
}

// nwcResponse is a response's content.
type nwcResponse struct {
	ResultType string                          `json:"result_type"`
	Error      *struct{ Code, Message string } `json:"error"`
	Result     json.RawMessage                 `json:"result"`
}

// parseURI reads a nostr+walletconnect URI.
func parseURI(t *testing.T, uri string) (wallet string, relays []string, secret, lud16 string) {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "nostr+walletconnect" {
		t.Fatalf("not a connection URI: %q", uri)
	}
	q := u.Query()
	return u.Host, q["relay"], q.Get("secret"), q.Get("lud16")
}

// connect is an app using uri (or, with secret set, a stranger's key).
func connect(t *testing.T, uri string) *app {
	t.Helper()
	wallet, relays, secret, lud := parseURI(t, uri)
	if len(relays) == 0 || len(secret) != 64 || len(wallet) != 64 {
		t.Fatalf("connection URI %q lacks its relay, secret or wallet key", uri)
	}
	pub, err := gonostr.GetPublicKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, relay: relays[0], wallet: wallet, secret: secret, pub: pub, lud: lud, ok: map[string]string{}}
	a.dial()
	t.Cleanup(a.close)
	return a
}

// dial connects and subscribes, and waits for the subscription's EOSE.
func (a *app) dial() {
	a.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	c, _, err := websocket.Dial(dctx, a.relay, nil)
	if err != nil {
		cancel()
		a.t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	a.mu.Lock()
	a.conn, a.cancel, a.eose = c, cancel, false
	a.mu.Unlock()
	req, _ := json.Marshal([]any{"REQ", "app", gonostr.Filter{Kinds: []int{23195, 23196, 23197}, Tags: gonostr.TagMap{"p": {a.pub}}}})
	if err := c.Write(dctx, websocket.MessageText, req); err != nil {
		a.t.Fatal(err)
	}
	go a.read(ctx, c)
	a.waitFor("the app's subscription", func() bool { return a.eose })
}

func (a *app) read(ctx context.Context, c *websocket.Conn) {
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		a.mu.Lock()
		switch env := gonostr.ParseMessage(string(msg)).(type) {
		case *gonostr.EventEnvelope:
			ev := env.Event
			a.got = append(a.got, &ev)
		case *gonostr.EOSEEnvelope:
			a.eose = true
		case *gonostr.OKEnvelope:
			a.ok[env.EventID] = env.Reason
			if env.OK {
				a.ok[env.EventID] = "ok"
			}
		}
		a.mu.Unlock()
	}
}

func (a *app) close() {
	a.mu.Lock()
	c, cancel := a.conn, a.cancel
	a.mu.Unlock()
	cancel()
	c.CloseNow() //nolint:errcheck
}

// waitFor waits until cond holds (under the app's lock).
func (a *app) waitFor(what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a.mu.Lock()
		done := cond()
		a.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// reqOpt adjusts a request event before it is signed.
type reqOpt func(ev *gonostr.Event)

// nip04Request sends the request as the NIP's first version did.
func nip04Request(ev *gonostr.Event) {
	ev.Tags = slicesDelete(ev.Tags, "encryption")
}

func slicesDelete(tags gonostr.Tags, key string) gonostr.Tags {
	out := gonostr.Tags{}
	for _, t := range tags {
		if t[0] != key {
			out = append(out, t)
		}
	}
	return out
}

// send signs and publishes a request; it returns the event.
func (a *app) send(method string, params any, opts ...reqOpt) *gonostr.Event {
	a.t.Helper()
	body, _ := json.Marshal(map[string]any{"method": method, "params": params})
	ev := &gonostr.Event{Kind: 23194, CreatedAt: gonostr.Now(), Tags: gonostr.Tags{{"p", a.wallet}, {"encryption", "nip44_v2"}}}
	for _, o := range opts {
		o(ev)
	}
	scheme := "nip04"
	if t := ev.Tags.Find("encryption"); t != nil {
		scheme = t[1]
	}
	ev.Content = a.encrypt(scheme, string(body))
	if err := ev.Sign(a.secret); err != nil {
		a.t.Fatal(err)
	}
	a.publish(ev)
	return ev
}

// publish writes ev to the relay as it is.
func (a *app) publish(ev *gonostr.Event) {
	a.t.Helper()
	msg, _ := json.Marshal([]any{"EVENT", ev})
	a.mu.Lock()
	c := a.conn
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
		a.t.Fatal(err)
	}
	a.waitFor("the relay's OK", func() bool { _, ok := a.ok[ev.ID]; return ok })
}

func (a *app) encrypt(scheme, plain string) string {
	a.t.Helper()
	var out string
	var err error
	if scheme == "nip44_v2" {
		var key [32]byte
		if key, err = nip44.GenerateConversationKey(a.wallet, a.secret); err == nil {
			out, err = nip44.Encrypt(plain, key)
		}
	} else {
		var key []byte
		if key, err = nip04.ComputeSharedSecret(a.wallet, a.secret); err == nil {
			out, err = nip04.Encrypt(plain, key)
		}
	}
	if err != nil {
		a.t.Fatal(err)
	}
	return out
}

// decrypt opens an event from the wallet in the encryption its tag names.
func (a *app) decrypt(ev *gonostr.Event) string {
	a.t.Helper()
	if ok, err := ev.CheckSignature(); !ok || err != nil || ev.PubKey != a.wallet {
		a.t.Fatalf("event %s is not the wallet's (signature %v %v)", ev.ID, ok, err)
	}
	var out string
	var err error
	if t := ev.Tags.Find("encryption"); t != nil && t[1] == "nip44_v2" {
		var key [32]byte
		if key, err = nip44.GenerateConversationKey(a.wallet, a.secret); err == nil {
			out, err = nip44.Decrypt(ev.Content, key)
		}
	} else {
		var key []byte
		if key, err = nip04.ComputeSharedSecret(a.wallet, a.secret); err == nil {
			out, err = nip04.Decrypt(ev.Content, key)
		}
	}
	if err != nil {
		a.t.Fatalf("decrypting %s: %v", ev.ID, err)
	}
	return out
}

// responses waits for n responses to request req and returns them.
func (a *app) responses(req *gonostr.Event, n int) []nwcResponse {
	a.t.Helper()
	var evs []*gonostr.Event
	a.waitFor("the wallet's answer to "+req.ID, func() bool {
		evs = evs[:0]
		for _, ev := range a.got {
			if ev.Kind == 23195 && ev.Tags.FindWithValue("e", req.ID) != nil {
				evs = append(evs, ev)
			}
		}
		return len(evs) >= n
	})
	out := make([]nwcResponse, len(evs))
	for i, ev := range evs {
		if ev.Tags.FindWithValue("p", a.pub) == nil {
			a.t.Fatalf("response %s is not tagged p with the app's key", ev.ID)
		}
		if err := json.Unmarshal([]byte(a.decrypt(ev)), &out[i]); err != nil {
			a.t.Fatal(err)
		}
	}
	return out
}

// call sends a request and returns its one response.
func (a *app) call(method string, params any, opts ...reqOpt) nwcResponse {
	a.t.Helper()
	return a.responses(a.send(method, params, opts...), 1)[0]
}

// result decodes a successful response's result into v.
func (r nwcResponse) result(t *testing.T, v any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%s failed: %s %s", r.ResultType, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatal(err)
	}
}

// code is a response's error code, "" for none.
func (r nwcResponse) code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// notifications returns the notifications of type kind received so far,
// decrypted.
func (a *app) notifications(kind int) []string {
	a.mu.Lock()
	var evs []*gonostr.Event
	for _, ev := range a.got {
		if ev.Kind == kind {
			evs = append(evs, ev)
		}
	}
	a.mu.Unlock()
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = a.decrypt(ev)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
