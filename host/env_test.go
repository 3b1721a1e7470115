package host_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// feature is a descriptor of a test built-in declaring scopes, built by
// build.
func feature(name string, build func(ctx context.Context, env *host.Env) (host.Builtin, error), scopes ...string) host.Descriptor {
	return host.Descriptor{Manifest: &host.Manifest{Name: name, Version: "1.0.0", ABI: host.ABIVersion, Scopes: scopes}, Build: build}
}

// An environment hands out each power only when the manifest declares it,
// and the built-in that asks for one it did not declare is not added.
func TestEnvironmentHandsOutWhatIsDeclared(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{AllowPrivate: true})
	ctx := context.Background()
	src := host.Environment{Config: config.Default(), DB: e.DB, Node: e.Node}
	for name, take := range map[string]func(env *host.Env) error{
		"outbound":  func(env *host.Env) error { _, err := env.Outbound(host.OutboundConfig{}); return err },
		"node-info": func(env *host.Env) error { _, err := env.NodeInfo(); return err },
		"chain":     func(env *host.Env) error { _, err := env.Chain(); return err },
		"provide":   func(env *host.Env) error { return env.Provide(host.Service{Name: "thing"}) },
		"use":       func(env *host.Env) error { _, err := host.Use[string](env, "thing"); return err },
	} {
		d := feature("greedy-"+name, func(_ context.Context, env *host.Env) (host.Builtin, error) { return host.Builtin{}, take(env) })
		if _, err := e.Registry.AddFeature(ctx, d, src); err == nil || !strings.Contains(err.Error(), "without declaring") {
			t.Errorf("%s undeclared: %v", name, err)
		}
		if _, err := e.Registry.Get(d.Manifest.Name); !errors.Is(err, host.ErrNotFound) {
			t.Errorf("%s: a built-in whose build failed is registered: %v", name, err)
		}
	}

	// Declared, each is handed out and noted among the built-in's powers.
	var info func(context.Context) (ledger.NodeInfo, error)
	var chain *host.Chain
	var out *host.Outbound
	d := feature("able", func(_ context.Context, env *host.Env) (host.Builtin, error) {
		var err error
		if out, err = env.Outbound(host.OutboundConfig{}); err != nil {
			return host.Builtin{}, err
		}
		if info, err = env.NodeInfo(); err != nil {
			return host.Builtin{}, err
		}
		chain, err = env.Chain()
		env.Tables()
		return host.Builtin{}, err
	}, host.NodeInfo, host.NodeChain, host.OutboundPrefix+"allowed.test")
	c, err := e.Registry.AddFeature(ctx, d, src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Plugin().Name != "able" {
		t.Errorf("AddFeature returned the host API of %s", c.Plugin().Name)
	}
	if got, want := strings.Join(c.Plugin().Powers(), " "), "http:outbound:allowed.test node:chain node:info tables"; got != want {
		t.Errorf("powers %q, want %q", got, want)
	}
	if i, err := info(ctx); err != nil || i.Network == "" {
		t.Errorf("node info %+v, %v", i, err)
	}
	if chain != nil {
		t.Errorf("the embedded node has no chain wallet, yet Chain is %v", chain)
	}
	// The client is the grant's: a host it was not granted is refused.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	if _, err := out.Do(ctx, nil, host.OutboundRequest{Method: "GET", URL: srv.URL}); err == nil || !strings.Contains(err.Error(), "not granted") {
		t.Errorf("the outbound client to a host outside the grant: %v", err)
	}
}

// spendingNode is a node with a chain wallet that spends.
type spendingNode struct {
	ledger.Node
	ledger.ChainWallet
	ledger.ChainSpender
}

// Chain hands out the reading half of a chain wallet: the spending half
// is not reachable through it, whatever the node.
func TestChainIsReadOnly(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	var chain *host.Chain
	d := feature("reader", func(_ context.Context, env *host.Env) (host.Builtin, error) {
		var err error
		chain, err = env.Chain()
		return host.Builtin{}, err
	}, host.NodeChain)
	if _, err := e.Registry.AddFeature(context.Background(), d, host.Environment{Node: spendingNode{}}); err != nil {
		t.Fatal(err)
	}
	if chain == nil || !chain.Spends() {
		t.Fatalf("chain %v", chain)
	}
	if _, ok := any(chain).(ledger.ChainSpender); ok {
		t.Error("the chain a built-in reads can spend")
	}
}

// A service is offered by one provider and reaches its users once offered
// (whichever was added first), as the type its users know.
func TestServicesMeetThroughTheRegistry(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	ctx := context.Background()
	var greeting func() (string, bool)
	user := feature("user", func(_ context.Context, env *host.Env) (host.Builtin, error) {
		var err error
		greeting, err = host.Use[string](env, "greeting")
		return host.Builtin{}, err
	}, host.UsesPrefix+"greeting")
	if _, err := e.Registry.AddFeature(ctx, user, host.Environment{}); err != nil {
		t.Fatal(err)
	}
	if v, ok := greeting(); ok {
		t.Fatalf("a service nobody provides answered %q", v)
	}
	provider := func(name string, v any) host.Descriptor {
		return feature(name, func(_ context.Context, env *host.Env) (host.Builtin, error) {
			return host.Builtin{}, env.Provide(host.Service{Name: "greeting", Value: v})
		}, host.ProvidesPrefix+"greeting")
	}
	if _, err := e.Registry.AddFeature(ctx, provider("greeter", "hello"), host.Environment{}); err != nil {
		t.Fatal(err)
	}
	if v, ok := greeting(); !ok || v != "hello" {
		t.Fatalf("the service answered %q, %v", v, ok)
	}
	if _, err := e.Registry.AddFeature(ctx, provider("usurper", "bye"), host.Environment{}); err == nil ||
		!strings.Contains(err.Error(), "provided by greeter already") {
		t.Fatalf("a second provider: %v", err)
	}
	if v, _ := greeting(); v != "hello" {
		t.Fatalf("after a refused provider the service answers %q", v)
	}
	if got := e.Registry.Provided()["greeting"]; got != "greeter" {
		t.Fatalf("provided %v", e.Registry.Provided())
	}
}

// A built-in's route answers the host API's call errors as the faults of
// their codes; other errors pass as they are.
func TestRouteErrorMapsCallErrors(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]fault.Kind{host.ErrPermission: fault.Forbidden, "invalid": fault.Invalid,
		"not_found": fault.NotFound, "unavailable": fault.Unavailable} {
		f, ok := fault.As(host.RouteError(fmt.Errorf("wrapped: %w", &host.CallError{Code: code, Message: "m"})))
		if !ok || f.Kind != want || f.Reason != "m" {
			t.Errorf("%s: %+v, want %d", code, f, want)
		}
	}
	plain := errors.New("boom")
	if got := host.RouteError(plain); got != plain {
		t.Errorf("a plain error became %v", got)
	}
	if _, ok := fault.As(host.RouteError(&host.CallError{Code: "abi", Message: "m"})); ok {
		t.Error("a call error of no route's code became a fault")
	}
}
