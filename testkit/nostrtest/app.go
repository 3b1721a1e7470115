package nostrtest

import (
	"context"
	"encoding/json"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip04"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// App is a NIP-47 client as an app is one: it reads a connection URI,
// subscribes on the relay to what the wallet sends its key, and sends
// requests encrypted with the URI's secret (NIP-44 v2, or NIP-04 with no
// encryption tag as the NIP's first version does). Built with go-nostr's
// events and encryption; the websocket is written here (go-nostr's Relay
// races with itself when closed).
type App struct {
	t                testing.TB
	relay, wallet    string
	secret, pub, lud string
	conn             *websocket.Conn
	cancel           context.CancelFunc
	mu               sync.Mutex
	got              []*gonostr.Event
	ok               map[string]string
	eose             bool
}

// Response is a NIP-47 response's content.
type Response struct {
	ResultType string                          `json:"result_type"`
	Error      *struct{ Code, Message string } `json:"error"`
	Result     json.RawMessage                 `json:"result"`
}

// ParseURI reads a nostr+walletconnect URI.
func ParseURI(t testing.TB, uri string) (wallet string, relays []string, secret, lud16 string) {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "nostr+walletconnect" {
		t.Fatalf("not a connection URI: %q", uri)
	}
	q := u.Query()
	return u.Host, q["relay"], q.Get("secret"), q.Get("lud16")
}

// Connect is an app using the connection uri (a stranger's, when its
// secret is no connection's); it is closed when the test ends.
func Connect(t testing.TB, uri string) *App {
	t.Helper()
	wallet, relays, secret, lud := ParseURI(t, uri)
	if len(relays) == 0 || len(secret) != 64 || len(wallet) != 64 {
		t.Fatalf("connection URI %q lacks its relay, secret or wallet key", uri)
	}
	pub, err := gonostr.GetPublicKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	a := &App{t: t, relay: relays[0], wallet: wallet, secret: secret, pub: pub, lud: lud, ok: map[string]string{}}
	a.Dial()
	t.Cleanup(a.close)
	return a
}

// Dial connects and subscribes, and waits for the subscription's EOSE.
func (a *App) Dial() {
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
	a.WaitFor("the app's subscription", func() bool { return a.eose })
}

func (a *App) read(ctx context.Context, c *websocket.Conn) {
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

func (a *App) close() {
	a.mu.Lock()
	c, cancel := a.conn, a.cancel
	a.mu.Unlock()
	cancel()
	c.CloseNow() //nolint:errcheck
}

// WaitFor waits until cond holds (under the app's lock).
func (a *App) WaitFor(what string, cond func() bool) {
	a.t.Helper()
	deadline := time.Now().Add(time.Minute) // generous: the machine may be busy
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

// ReqOpt adjusts a request event before it is signed.
type ReqOpt func(ev *gonostr.Event)

// NIP04 sends the request as the NIP's first version did.
func NIP04(ev *gonostr.Event) {
	ev.Tags = WithoutTag(ev.Tags, "encryption")
}

func WithoutTag(tags gonostr.Tags, key string) gonostr.Tags {
	out := gonostr.Tags{}
	for _, t := range tags {
		if t[0] != key {
			out = append(out, t)
		}
	}
	return out
}

// Send signs and publishes a request; it returns the event.
func (a *App) Send(method string, params any, opts ...ReqOpt) *gonostr.Event {
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
	a.Publish(ev)
	return ev
}

// Publish writes ev to the relay as it is.
func (a *App) Publish(ev *gonostr.Event) {
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
	a.WaitFor("the relay's OK", func() bool { _, ok := a.ok[ev.ID]; return ok })
}

func (a *App) encrypt(scheme, plain string) string {
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
func (a *App) decrypt(ev *gonostr.Event) string {
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

// Responses waits for n responses to request req and returns them.
func (a *App) Responses(req *gonostr.Event, n int) []Response {
	a.t.Helper()
	var evs []*gonostr.Event
	a.WaitFor("the wallet's answer to "+req.ID, func() bool {
		evs = evs[:0]
		for _, ev := range a.got {
			if ev.Kind == 23195 && ev.Tags.FindWithValue("e", req.ID) != nil {
				evs = append(evs, ev)
			}
		}
		return len(evs) >= n
	})
	out := make([]Response, len(evs))
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

// Call sends a request and returns its one response.
func (a *App) Call(method string, params any, opts ...ReqOpt) Response {
	a.t.Helper()
	return a.Responses(a.Send(method, params, opts...), 1)[0]
}

// Decode decodes a successful response's result into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("%s failed: %s %s", r.ResultType, r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		t.Fatal(err)
	}
}

// Code is a response's error code, "" for none.
func (r Response) Code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// Notifications returns the notifications of type kind received so far,
// decrypted.
func (a *App) Notifications(kind int) []string {
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

// Pub is the app's public key, Wallet the wallet service's, Lud16 the
// URI's Lightning Address.
func (a *App) Pub() string    { return a.pub }
func (a *App) Wallet() string { return a.wallet }
func (a *App) Lud16() string  { return a.lud }

// Events is every event the app has received so far.
func (a *App) Events() []*gonostr.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*gonostr.Event(nil), a.got...)
}

// Count is how many events of kind the app has received.
func (a *App) Count(kind int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.count(kind)
}

func (a *App) count(kind int) int {
	n := 0
	for _, ev := range a.got {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// WaitForKind waits until the app has received n events of kind.
func (a *App) WaitForKind(what string, kind, n int) {
	a.t.Helper()
	a.WaitFor(what, func() bool { return a.count(kind) >= n })
}

// TryCall sends a request and waits up to within for its answer: false
// when none came (the wallet is not listening yet), and the request may be
// sent again.
func (a *App) TryCall(method string, params any, within time.Duration) (Response, bool) {
	a.t.Helper()
	req := a.Send(method, params)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		for _, ev := range a.Events() {
			if ev.Kind == 23195 && ev.Tags.FindWithValue("e", req.ID) != nil {
				var r Response
				if err := json.Unmarshal([]byte(a.decrypt(ev)), &r); err != nil {
					a.t.Fatal(err)
				}
				return r, true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return Response{}, false
}
