package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/contract"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/plugintest/apiserver"
	"github.com/hearthwallet/hearth/testkit/logtest"
)

// testRelay is a real Nostr relay (khatru) on a loopback websocket, which
// a test can stop and start again on the same address.
type testRelay struct {
	t    *testing.T
	addr string

	mu       sync.Mutex
	events   map[string]*gonostr.Event
	received map[string]int // EVENT messages taken, by event id
	srv      *http.Server
	ln       net.Listener
	// reader answers REQs over the same events: khatru v0.19.1 reads its
	// subscriptions without its lock when it broadcasts an EVENT, so a REQ
	// on the relay that Hearth publishes to races (go test -race).
	reader *httptest.Server
	// reject, when set, is the reason the relay refuses every event.
	reject string
}

// startRelay starts a relay; reject, when given, is the reason it
// refuses every event with.
func startRelay(t *testing.T, reject ...string) *testRelay {
	t.Helper()
	r := &testRelay{t: t, events: map[string]*gonostr.Event{}, received: map[string]int{}}
	if len(reject) > 0 {
		r.reject = reject[0]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	t.Cleanup(r.stop)
	rd := khatru.NewRelay()
	rd.QueryEvents = append(rd.QueryEvents, r.query)
	r.reader = httptest.NewServer(rd)
	t.Cleanup(r.reader.Close)
	return r
}

func (r *testRelay) query(_ context.Context, f gonostr.Filter) (chan *gonostr.Event, error) {
	r.mu.Lock()
	var out []*gonostr.Event
	for _, ev := range r.events {
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	r.mu.Unlock()
	ch := make(chan *gonostr.Event, len(out))
	for _, ev := range out {
		ch <- ev
	}
	close(ch)
	return ch, nil
}

func (r *testRelay) URL() string { return "ws://" + r.addr }

func (r *testRelay) serve(ln net.Listener) {
	k := khatru.NewRelay()
	if r.reject != "" {
		k.RejectEvent = append(k.RejectEvent, func(context.Context, *gonostr.Event) (bool, string) { return true, r.reject })
	}
	k.StoreEvent = append(k.StoreEvent, func(_ context.Context, ev *gonostr.Event) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.received[ev.ID]++
		if _, ok := r.events[ev.ID]; ok {
			return eventstore.ErrDupEvent
		}
		r.events[ev.ID] = ev
		return nil
	})
	k.QueryEvents = append(k.QueryEvents, r.query)
	srv := &http.Server{Handler: k}
	r.mu.Lock()
	r.srv, r.ln = srv, ln
	r.mu.Unlock()
	go srv.Serve(ln) //nolint:errcheck
}

// stop closes the relay: connections to it are refused.
func (r *testRelay) stop() {
	r.mu.Lock()
	srv, ln := r.srv, r.ln
	r.srv, r.ln = nil, nil
	r.mu.Unlock()
	if srv != nil {
		ln.Close()  //nolint:errcheck // Serve may not have taken it yet
		srv.Close() //nolint:errcheck
	}
}

// start serves the relay again on its address (its events kept).
func (r *testRelay) start() {
	r.t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.serve(ln)
}

// checkPublished fails t unless the relay was sent receipt once: a zap
// receipt signed by pubkey that names the invoice bolt11 and, as its
// description, the zap request raw as sent.
func (r *testRelay) checkPublished(t *testing.T, receipt, pubkey, bolt11, raw string) {
	t.Helper()
	if n := r.times(receipt); n != 1 {
		t.Fatalf("the relay was sent the receipt %d times", n)
	}
	r.mu.Lock()
	ev := r.events[receipt]
	r.mu.Unlock()
	if ok, err := ev.CheckSignature(); !ok || err != nil || ev.PubKey != pubkey || ev.Kind != nostr.KindZapReceipt {
		t.Fatalf("receipt %+v: signature %v %v, want by %s", ev, ok, err, pubkey)
	}
	if tg := ev.Tags.Find("bolt11"); tg == nil || tg[1] != bolt11 {
		t.Fatalf("receipt's bolt11 %v", tg)
	}
	if tg := ev.Tags.Find("description"); tg == nil || tg[1] != raw {
		t.Fatalf("receipt's description %v is not the request as sent", tg)
	}
}

// times is how many times the relay was sent event id.
func (r *testRelay) times(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.received[id]
}

// receipts asks the relay's events, as a Nostr client does (a REQ over a
// websocket, NIP-01), for the zap receipts to pubkey. (go-nostr's Relay
// races with itself when closed, so the REQ is written here.)
func (r *testRelay) receipts(t *testing.T, pubkey string) []*gonostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.reader.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow() //nolint:errcheck
	req, _ := gonostr.ReqEnvelope{SubscriptionID: "z", Filters: gonostr.Filters{
		{Kinds: []int{nostr.KindZapReceipt}, Tags: gonostr.TagMap{"p": {pubkey}}}}}.MarshalJSON()
	if err := c.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatal(err)
	}
	var out []*gonostr.Event
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch env := gonostr.ParseMessage(string(msg)).(type) {
		case *gonostr.EventEnvelope:
			ev := env.Event
			out = append(out, &ev)
		case *gonostr.EOSEEnvelope:
			return out
		}
	}
}

// The tests of zaps do not run in parallel: plugintest.New, run by two
// tests at once, races inside wazero (its version is read without a lock
// when the compilation cache is made).

// zapKit is Hearth's LNURL and Nostr plugins over a real ledger, served
// by the real API, wired as cmd/hearth wires them; the Nostr plugin's lead
// runs in a registry of its own so that a test can stop and restart it.
type zapKit struct {
	t         *testing.T
	e         *plugintest.Env
	srv       *httptest.Server
	tokens    *auth.Tokens
	addresses *lnurl.Plugin
	zaps      *nostr.Plugin
	cfg       nostr.Config
	logs      *logtest.Buffer
	stopLead  func()
}

// fastZaps are the tests' delays.
var fastZaps = nostr.Config{FirstRetry: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
	Poll: 20 * time.Millisecond, Timeout: 5 * time.Second, AllowPrivate: true}

func newZapKit(t *testing.T, e *plugintest.Env, cfg nostr.Config) *zapKit {
	t.Helper()
	k := &zapKit{t: t, e: e, cfg: cfg, logs: &logtest.Buffer{}}
	k.srv = httptest.NewUnstartedServer(nil)
	addr := k.srv.Listener.Addr().String()
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: 5 * time.Second})
	k.addresses = lnurl.New(lnurl.Deps{DB: e.DB, Outbound: out, Decoder: e.Node,
		Config:       lnurl.Config{Domain: addr, PublicURL: "http://" + addr, AllowPrivate: true},
		WalletExists: func(ctx context.Context, id string) error { _, err := e.Wallets.Get(ctx, id); return err }})
	plugin, err := e.Registry.AddBuiltin(k.addresses.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	k.addresses.Bind(e.API.For(plugin))
	if err := k.addresses.Register(context.Background()); err != nil {
		t.Fatal(err)
	}
	k.zaps = k.newNostr()
	if _, err := e.Registry.AddBuiltin(k.zaps.Builtin()); err != nil {
		t.Fatal(err)
	}
	k.addresses.SetZapper(k.zaps)
	c := config.Default()
	c.Domain, c.PublicURL = addr, "http://"+addr
	c.Plugins.AllowPrivateHosts = true
	k.tokens = apiserver.New(e, k.srv, c).Tokens
	k.startLead(k.zaps)
	t.Cleanup(func() { k.stopLead() })
	return k
}

// newNostr builds the Nostr plugin as a (re)started server does.
func (k *zapKit) newNostr() *nostr.Plugin {
	k.t.Helper()
	out := host.NewOutbound(host.OutboundConfig{AllowPrivate: k.cfg.AllowPrivate, Timeout: 5 * time.Second})
	p := nostr.New(nostr.Deps{DB: k.e.DB, Outbound: out, Names: func() contract.Names { return k.addresses }, Config: k.cfg,
		Log: slog.New(slog.NewTextHandler(k.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err := p.Start(context.Background()); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// startLead runs p's lead (delivery) until stopLead.
func (k *zapKit) startLead(p *nostr.Plugin) {
	reg := host.NewRegistry(host.RegistryDeps{DB: k.e.DB, API: k.e.API})
	plugin, err := reg.AddBuiltin(p.Builtin())
	if err != nil {
		k.t.Fatal(err)
	}
	p.Bind(k.e.API.For(plugin))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); reg.RunBuiltins(ctx, k.e.Outbox) }()
	k.stopLead = func() { cancel(); <-done }
}

// restart stops the lead and starts a new plugin (a restarted server).
func (k *zapKit) restart() {
	k.stopLead()
	k.startLead(k.newNostr())
}

type zreply struct {
	Code   int
	Header http.Header
	Body   []byte
}

func (r zreply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

func (k *zapKit) do(token, method, path string, body any) zreply {
	k.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = k.srv.URL + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		k.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return zreply{Code: resp.StatusCode, Header: resp.Header, Body: b}
}

// user is a token of a new user's funded wallet.
func (k *zapKit) user(id string, msat int64) (string, *wallet.Wallet) {
	k.t.Helper()
	w := k.e.Wallet(id, msat)
	tok, err := k.tokens.Issue(id, auth.AllScopes)
	if err != nil {
		k.t.Fatal(err)
	}
	return tok, w
}

// nostrUser is a Nostr identity: a key pair.
type nostrUser struct{ sk, pk string }

func newNostrUser(t *testing.T) nostrUser {
	sk := gonostr.GeneratePrivateKey()
	pk, err := gonostr.GetPublicKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	return nostrUser{sk, pk}
}

// registerZappable registers username for token's wallet with
// allows_nostr and the key of who.
func (k *zapKit) registerZappable(token, username string, who nostrUser) lnurl.Address {
	k.t.Helper()
	r := k.do(token, "POST", "/v1/me/lightning-address", map[string]any{"username": username, "allows_nostr": true, "nostr_pubkey": who.pk})
	if r.Code != http.StatusCreated {
		k.t.Fatalf("registering %s: %d %s", username, r.Code, r.Body)
	}
	var a lnurl.Address
	r.decode(k.t, &a)
	return a
}

// payParams fetches the payRequest of username, as a client does.
func (k *zapKit) payParams(username string) lnurl.PayParams {
	k.t.Helper()
	r := k.do("", "GET", "/.well-known/lnurlp/"+username, nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("payRequest of %s: %d %s", username, r.Code, r.Body)
	}
	var pp lnurl.PayParams
	r.decode(k.t, &pp)
	return pp
}

// zapRequest signs a kind 9734 event by from with tags and content, and
// returns its JSON as a client may write it: not in go-nostr's field
// order, with spaces, so that re-serialising it would change its bytes.
func zapRequest(t *testing.T, from nostrUser, content string, tags gonostr.Tags) (string, *gonostr.Event) {
	t.Helper()
	ev := &gonostr.Event{Kind: nostr.KindZapRequest, Content: content, Tags: tags, CreatedAt: gonostr.Now()}
	if err := ev.Sign(from.sk); err != nil {
		t.Fatal(err)
	}
	return rawEvent(ev), ev
}

// rawEvent writes ev's JSON with its fields in another order and spaces.
func rawEvent(ev *gonostr.Event) string {
	tags, _ := json.Marshal(ev.Tags)
	content, _ := json.Marshal(ev.Content)
	var b strings.Builder
	b.WriteString(`{ "kind": `)
	b.WriteString(jsonInt(ev.Kind))
	b.WriteString(`, "content": ` + string(content) + `, "tags": ` + string(tags))
	b.WriteString(`, "pubkey": "` + ev.PubKey + `", "created_at": ` + jsonInt(int(ev.CreatedAt)))
	b.WriteString(`, "id": "` + ev.ID + `", "sig": "` + ev.Sig + `" }`)
	return b.String()
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// callback calls the payRequest's callback with a zap request.
func (k *zapKit) callback(pp lnurl.PayParams, amount int64, raw string, extra url.Values) zreply {
	k.t.Helper()
	q := url.Values{"amount": {jsonInt(int(amount))}, "nostr": {raw}}
	for key, v := range extra {
		q[key] = v
	}
	return k.do("", "GET", pp.Callback+"?"+q.Encode(), nil)
}

// invoiceOf calls the callback and returns its invoice and the invoice's
// id (the end of its LUD-21 verify URL), expecting 200.
func (k *zapKit) invoiceOf(pp lnurl.PayParams, amount int64, raw string) (pr, id string) {
	k.t.Helper()
	r := k.callback(pp, amount, raw, nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("callback: %d %s", r.Code, r.Body)
	}
	var inv lnurl.Invoice
	r.decode(k.t, &inv)
	return inv.PR, inv.Verify[strings.LastIndex(inv.Verify, "/")+1:]
}

// zapsOf lists token's zaps.
func (k *zapKit) zapsOf(token string) []nostr.Zap {
	k.t.Helper()
	r := k.do(token, "GET", "/v1/me/zaps", nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("zaps: %d %s", r.Code, r.Body)
	}
	var zs []nostr.Zap
	r.decode(k.t, &zs)
	return zs
}

// checkReceipt checks rc as a Nostr client does (NIP-57 appendix F), and
// every tag: signed by the payRequest's nostrPubkey, the description the
// request byte for byte, its hash the invoice's, the amount the
// request's, the preimage the invoice's.
func (k *zapKit) checkReceipt(rc *gonostr.Event, pp lnurl.PayParams, raw string, req *gonostr.Event, pr string) {
	t := k.t
	t.Helper()
	if ok, err := rc.CheckSignature(); err != nil || !ok || !rc.CheckID() {
		t.Fatalf("receipt's signature or id is not valid: %v", err)
	}
	if rc.PubKey != pp.NostrPubkey || rc.Kind != nostr.KindZapReceipt {
		t.Fatalf("receipt by %s of kind %d, want %s's kind 9735", rc.PubKey, rc.Kind, pp.NostrPubkey)
	}
	tag := func(name string) string {
		if tg := rc.Tags.Find(name); len(tg) >= 2 {
			return tg[1]
		}
		return ""
	}
	if tag("description") != raw {
		t.Fatalf("description %q is not the request as sent %q", tag("description"), raw)
	}
	if tag("bolt11") != pr {
		t.Fatalf("bolt11 %q, want %q", tag("bolt11"), pr)
	}
	dec, err := k.e.Node.Decode(pr)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(tag("description")))
	if dec.DescriptionHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("invoice's description hash %s is not sha256(description) %x", dec.DescriptionHash, sum)
	}
	if a := req.Tags.Find("amount"); a != nil && a[1] != jsonInt(int(dec.AmountMsat)) {
		t.Fatalf("invoice amount %d, request's amount tag %s", dec.AmountMsat, a[1])
	}
	pre, err := hex.DecodeString(tag("preimage"))
	if err != nil {
		t.Fatal(err)
	}
	if h := sha256.Sum256(pre); hex.EncodeToString(h[:]) != dec.PaymentHash {
		t.Fatalf("preimage does not hash to the payment hash")
	}
	if tag("p") != req.Tags.Find("p")[1] || tag("P") != req.PubKey {
		t.Fatalf("p %s P %s, want %s and %s", tag("p"), tag("P"), req.Tags.Find("p")[1], req.PubKey)
	}
	for _, name := range []string{"e", "a", "k"} {
		if want := req.Tags.Find(name); want != nil && tag(name) != want[1] {
			t.Fatalf("%s tag %q, the request's is %q", name, tag(name), want[1])
		}
		if req.Tags.Find(name) == nil && tag(name) != "" {
			t.Fatalf("%s tag %q that the request has not", name, tag(name))
		}
	}
	if rc.Content != "" {
		t.Fatalf("content %q", rc.Content)
	}
}

// waitReceipt waits until relay has a receipt to pubkey whose bolt11 is
// pr, and returns it.
func (k *zapKit) waitReceipt(relay *testRelay, pubkey, pr string) *gonostr.Event {
	k.t.Helper()
	var got *gonostr.Event
	k.e.Eventually("a receipt on "+relay.URL(), func() bool {
		relay.mu.Lock()
		defer relay.mu.Unlock()
		for _, ev := range relay.events {
			if tg := ev.Tags.Find("bolt11"); tg != nil && tg[1] == pr {
				got = ev
				return true
			}
		}
		return false
	})
	for _, ev := range relay.receipts(k.t, pubkey) {
		if ev.ID == got.ID {
			return ev
		}
	}
	k.t.Fatalf("the relay does not answer the receipt to a REQ")
	return nil
}

// zapOf is token's zap of invoice id.
func (k *zapKit) zapOf(token, id string) nostr.Zap {
	k.t.Helper()
	r := k.do(token, "GET", "/v1/me/zaps/"+id, nil)
	if r.Code != http.StatusOK {
		k.t.Fatalf("zap %s: %d %s", id, r.Code, r.Body)
	}
	var z nostr.Zap
	r.decode(k.t, &z)
	return z
}
