package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugintest"
)

// kit is the webhooks plugin over a real ledger and outbox, its webhooks
// delivered by the host's sender, which the kit runs (so that a test can
// stop and start it): its env runs nothing else (plugintest.Options.NoRun).
type kit struct {
	t   *testing.T
	e   *plugintest.Env
	cfg webhooks.Config
	p   *webhooks.Plugin
	// strictOutbound refuses private addresses in the outbound client
	// whatever cfg says.
	strictOutbound bool

	stop func()
}

// fastRetries are the delays of the tests.
var fastRetries = webhooks.Config{FirstRetry: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond}

func newKit(t *testing.T, e *plugintest.Env, cfg webhooks.Config) *kit {
	k := &kit{t: t, e: e, cfg: cfg}
	k.start()
	t.Cleanup(func() { k.stop() })
	return k
}

// start builds the plugin, the first time, in a registry of its own, and
// runs the host's sender until stop.
func (k *kit) start() {
	k.t.Helper()
	if k.p == nil {
		out := host.NewOutbound(host.OutboundConfig{AllowPrivate: k.cfg.AllowPrivate && !k.strictOutbound, Timeout: 5 * time.Second})
		reg := host.NewRegistry(host.RegistryDeps{DB: k.e.DB, API: k.e.API})
		p, err := reg.RegisterBuiltin(webhooks.Manifest(), nil, "")
		if err != nil {
			k.t.Fatal(err)
		}
		k.p = webhooks.New(webhooks.Deps{DB: k.e.DB, Host: k.e.API.For(p), Outbound: out, Config: k.cfg,
			EventTypes: k.e.Registry.EventTypes})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.e.API.Sender().Run(ctx, k.e.Outbox) }()
	k.stop = func() { cancel(); <-done }
}

// call runs the route method path (as declared, with {id}) as caller.
func (k *kit) call(caller *host.Principal, method, path, id string, body any) (any, error) {
	k.t.Helper()
	for _, rt := range k.p.Builtin().Routes {
		if rt.Method != method || rt.Path != path {
			continue
		}
		req := &host.BuiltinRequest{Caller: caller, Params: map[string]string{"id": id}, Query: map[string][]string{}}
		if rt.Body != nil {
			req.Body = body
		}
		return rt.Handle(context.Background(), req)
	}
	k.t.Fatalf("no route %s %s", method, path)
	return nil, nil
}

func (k *kit) create(caller *host.Principal, url string, events ...string) *webhooks.Webhook {
	k.t.Helper()
	w, err := k.call(caller, "POST", "/v1/me/webhooks", "", &webhooks.CreateRequest{URL: &url, Events: events})
	if err != nil {
		k.t.Fatalf("creating a webhook of %s: %v", url, err)
	}
	return w.(*webhooks.Webhook)
}

func (k *kit) attempts(caller *host.Principal, id string) []webhooks.Attempt {
	k.t.Helper()
	as, err := k.call(caller, "GET", "/v1/me/webhooks/{id}/deliveries", id, nil)
	if err != nil {
		k.t.Fatal(err)
	}
	return as.([]webhooks.Attempt)
}

// user returns the caller that owns w, with every scope.
func user(w *wallet.Wallet) *host.Principal {
	return &host.Principal{UserID: w.UserID, WalletID: w.ID, Scopes: auth.AllScopes}
}

// pay makes an invoice of to and pays it from from: an internal payment,
// settled at once.
func pay(e *plugintest.Env, from, to *wallet.Wallet, msat int64) string {
	e.T.Helper()
	inv, err := e.CreateInvoice(to.ID, msat, nil)
	if err != nil {
		e.T.Fatal(err)
	}
	return e.Pay(from.ID, inv.Bolt11).ID
}

// delivery is one request a receiver got.
type delivery struct {
	Header http.Header
	Body   []byte
	Event  struct {
		ID       int64           `json:"id"`
		Type     string          `json:"type"`
		WalletID string          `json:"wallet_id"`
		Created  time.Time       `json:"created_at"`
		Data     json.RawMessage `json:"data"`
	}
}

// receiver records every request; answer decides each one's status.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer func(n int, d delivery) int
}

func newReceiver(t *testing.T, answer func(n int, d delivery) int) *receiver {
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var d delivery
		d.Header = req.Header.Clone()
		d.Body, _ = io.ReadAll(req.Body)
		json.Unmarshal(d.Body, &d.Event) //nolint:errcheck // checked by the tests
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, d)
		r.mu.Unlock()
		status := 200
		if r.answer != nil {
			status = r.answer(n, d)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) all() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// isFault reports whether err is a fault of kind.
func isFault(err error, kind fault.Kind) bool {
	f, ok := fault.As(err)
	return ok && f.Kind == kind
}
