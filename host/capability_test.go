package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// Each capability, for a built-in: a plugin that does not declare it is
// refused, one that declares it is served. (A built-in is granted what it
// declares.)
func TestBuiltinCapabilities(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	ctx := context.Background()
	alice := e.Wallet("alice", 10_000)
	bob := e.Wallet("bob", 0)

	t.Run(host.ReceiveAny+" and "+host.ReadAny, func(t *testing.T) {
		plain := builtin(t, e, "plain-receiver", "", "write:transaction", "read:transaction")
		if _, err := plain.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000}); !isPermission(err) {
			t.Fatalf("receive into another wallet without %s: %v", host.ReceiveAny, err)
		}
		able := builtin(t, e, "able-receiver", "", "write:transaction", "read:transaction", host.ReceiveAny)
		inv, err := able.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil || inv.WalletID != bob.ID {
			t.Fatalf("receive with %s: %+v %v", host.ReceiveAny, inv, err)
		}
		if _, err := able.ReceivedInvoice(ctx, bob.ID, inv.ID); !isPermission(err) {
			t.Fatalf("read another wallet's invoice without %s: %v", host.ReadAny, err)
		}
		reader := builtin(t, e, "able-reader", "", "read:transaction", host.ReadAny)
		if got, err := reader.ReceivedInvoice(ctx, bob.ID, inv.ID); err != nil || got.ID != inv.ID {
			t.Fatalf("read with %s: %+v %v", host.ReadAny, got, err)
		}
	})

	t.Run("tags and "+host.PresentInvoices, func(t *testing.T) {
		// A plugin's tag is its own, whatever it says.
		tagger := builtin(t, e, "tagger", "", "write:transaction", host.ReceiveAny)
		inv, err := tagger.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000, Tag: &ledger.Tag{Plugin: "lnurl", Value: "order-7"}})
		if err != nil || inv.Tag == nil || *inv.Tag != (ledger.Tag{Plugin: "tagger", Value: "order-7"}) {
			t.Fatalf("a tagged invoice: %+v %v", inv, err)
		}
		if _, err := tagger.Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000, Tag: &ledger.Tag{Value: "bell\a"}}); err == nil {
			t.Fatal("a tag with a control character was kept")
		}
		b, _ := json.Marshal(inv)
		if strings.Contains(string(b), "order_id") || !strings.Contains(string(b), `"tag":{"plugin":"tagger","value":"order-7"}`) {
			t.Fatalf("the record before tagger publishes its tags: %s", b)
		}
		// Publishing them under a field of the record takes invoice:present.
		m := &host.Manifest{Name: "tagger-shown", Version: "1.0.0", ABI: host.ABIVersion}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, TagField: "order_id"}); err == nil {
			t.Fatalf("a built-in shows its tags without %s", host.PresentInvoices)
		}
		m.Scopes = []string{host.PresentInvoices, "write:transaction", host.ReceiveAny}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, TagField: "wallet_id"}); err == nil {
			t.Fatal("a built-in shows its tags as a field the record has")
		}
		p, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, TagField: "order_id"})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Registry.TagFields(); !slices.Equal(got, []string{"order_id"}) {
			t.Errorf("the registry's tag fields %v", got)
		}
		shown, err := e.API.For(p).Receive(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000, Tag: &ledger.Tag{Value: "order-8"}})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(shown); !strings.Contains(string(b), `"order_id":"order-8"`) {
			t.Fatalf("the record of a tag shown as a field: %s", b)
		}
		// The field is kept with the invoice: read again, it shows.
		again, err := e.Ledger.Invoice(ctx, bob.ID, shown.ID)
		if b, _ := json.Marshal(again); err != nil || !strings.Contains(string(b), `"order_id":"order-8"`) {
			t.Fatalf("the invoice read again: %s %v", b, err)
		}
		// Another built-in may not show its tags under the same field.
		other := &host.Manifest{Name: "tagger-too", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.PresentInvoices}}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: other, TagField: "order_id"}); err == nil {
			t.Fatal("two built-ins show their tags under one field")
		}
	})

	t.Run(host.NostrSign, func(t *testing.T) {
		signer := newKeySigner()
		unsigned := json.RawMessage(`{"kind":1,"content":"hello","tags":[["t","hearth"]]}`)
		herald := builtin(t, e, "herald", "", host.NostrSign)
		if _, err := herald.CallABIService(ctx, "nostr_sign", unsigned); err == nil || !strings.Contains(err.Error(), "no plugin provides") {
			t.Fatalf("signing with no signer provided: %v", err)
		}
		provideSigner(t, e, signer)
		if _, err := builtin(t, e, "mute", "").CallABIService(ctx, "nostr_sign", unsigned); !isPermission(err) {
			t.Fatalf("signing without %s: %v", host.NostrSign, err)
		}
		signed, err := herald.CallABIService(ctx, "nostr_sign", unsigned)
		if err != nil {
			t.Fatal(err)
		}
		signer.check(t, signed.(json.RawMessage), "hello")
	})

	t.Run(host.LedgerResolver, func(t *testing.T) {
		var asked atomic.Int32
		r := resolverFunc(func() { asked.Add(1) })
		without := builtin(t, e, "no-resolver", "")
		if err := without.AddResolver(ctx, r); !isPermission(err) {
			t.Fatalf("adding a resolver without %s: %v", host.LedgerResolver, err)
		}
		if _, err := e.Ledger.EstimateFee(ctx, alice.ID, ledger.PayRequest{Input: "capability-test:1"}); err == nil || asked.Load() != 0 {
			t.Fatalf("the refused resolver was asked (%d) or the input resolved: %v", asked.Load(), err)
		}
		with := builtin(t, e, "a-resolver", "", host.LedgerResolver)
		if err := with.AddResolver(ctx, r); err != nil {
			t.Fatal(err)
		}
		e.Ledger.EstimateFee(ctx, alice.ID, ledger.PayRequest{Input: "capability-test:2"}) //nolint:errcheck // the resolver knows no input
		if asked.Load() != 1 {
			t.Fatalf("the granted resolver was asked %d times", asked.Load())
		}
	})

	t.Run(host.LedgerPrices+" and "+host.RatesRead, func(t *testing.T) {
		prices := fixedPrices{"EUR": "1250"}
		if err := builtin(t, e, "no-prices", "").SetPrices(ctx, prices); !isPermission(err) {
			t.Fatalf("giving the ledger its rates without %s: %v", host.LedgerPrices, err)
		}
		if _, err := e.Ledger.Rate(ctx, "EUR"); !errors.Is(err, ledger.ErrRatesUnavailable) {
			t.Fatalf("a refused provider's rates were taken: %v", err)
		}
		if err := builtin(t, e, "prices", "", host.LedgerPrices).SetPrices(ctx, prices); err != nil {
			t.Fatal(err)
		}
		if _, err := builtin(t, e, "no-rates", "").ExchangeRate(ctx, "EUR"); !isPermission(err) {
			t.Fatalf("reading a rate without %s: %v", host.RatesRead, err)
		}
		reader := builtin(t, e, "rates-reader", "", "write:transaction", host.RatesRead, host.ReceiveAny)
		if r, err := reader.ExchangeRate(ctx, "eur"); err != nil || r.Rate != "1250" || r.Currency != "EUR" {
			t.Fatalf("reading a rate with %s: %+v %v", host.RatesRead, r, err)
		}
		inv, err := reader.Receive(ctx, bob.ID, ledger.NewInvoice{Fiat: &ledger.FiatAmount{Amount: "2.00", Currency: "EUR"}})
		if err != nil || *inv.AmountMsat != 2_500_000 || inv.Fiat == nil || inv.Fiat.Rate != "1250" {
			t.Fatalf("an invoice of 2 EUR at 1250 sat each: %+v %v", inv, err)
		}
	})

	t.Run(host.InvoiceHold, func(t *testing.T) {
		hash := strings.Repeat("ab", 32)
		req := ledger.NewHoldInvoice{NewInvoice: ledger.NewInvoice{AmountMsat: 2_000}, PaymentHash: hash}
		without := builtin(t, e, "no-holds", bob.ID, "write:transaction")
		if _, err := without.CreateHoldInvoice(ctx, req); !isPermission(err) {
			t.Fatalf("a hold invoice without %s: %v", host.InvoiceHold, err)
		}
		if _, err := builtin(t, e, "holds-no-write", bob.ID, host.InvoiceHold).CreateHoldInvoice(ctx, req); !isPermission(err) {
			t.Fatalf("a hold invoice without write:transaction: %v", err)
		}
		holder := builtin(t, e, "holder", bob.ID, "write:transaction", host.InvoiceHold)
		inv, err := holder.CreateHoldInvoice(ctx, req)
		if err != nil || !inv.Hold || inv.WalletID != bob.ID {
			t.Fatalf("a hold invoice with %s: %+v %v", host.InvoiceHold, inv, err)
		}
		if _, err := without.CancelHold(ctx, inv.ID); !isPermission(err) {
			t.Fatalf("cancelling without %s: %v", host.InvoiceHold, err)
		}
		// Another wallet's hold invoice is not the plugin's to end.
		if _, err := builtin(t, e, "alices-holder", alice.ID, "write:transaction", host.InvoiceHold).CancelHold(ctx, inv.ID); !errors.Is(err, ledger.ErrInvoiceNotFound) {
			t.Fatalf("cancelling another wallet's hold invoice: %v", err)
		}
		if got, err := holder.CancelHold(ctx, inv.ID); err != nil || got.Status != ledger.StatusCancelled {
			t.Fatalf("cancelling with %s: %+v %v", host.InvoiceHold, got, err)
		}
	})

	t.Run(host.LedgerDeposit, func(t *testing.T) {
		without := builtin(t, e, "no-deposits", "", "write:transaction")
		if _, err := without.PendingDeposits(ctx); !isPermission(err) {
			t.Fatalf("pending deposits without %s: %v", host.LedgerDeposit, err)
		}
		if err := without.ReconcileSpends(ctx, nil, false); !isPermission(err) {
			t.Fatalf("reconciling spends without %s: %v", host.LedgerDeposit, err)
		}
		if _, err := without.Deposit(ctx, alice.ID, ledger.BitcoinOutput{TxID: strings.Repeat("ab", 32), AmountSat: 1000}, true); !isPermission(err) {
			t.Fatalf("a deposit without %s: %v", host.LedgerDeposit, err)
		}
		with := builtin(t, e, "deposits", "", host.LedgerDeposit)
		if _, err := with.PendingDeposits(ctx); err != nil {
			t.Fatalf("pending deposits with %s: %v", host.LedgerDeposit, err)
		}
	})

	t.Run(host.HTTPAny+" and "+host.OutboundPrefix+"<host>", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
		defer srv.Close()
		hostport := strings.TrimPrefix(srv.URL, "http://")
		for name, scopes := range map[string][]string{"no-http": nil, "any-http": {host.HTTPAny}, "one-host": {host.OutboundPrefix + "127.0.0.1"}} {
			builtin(t, e, name, "", scopes...)
			out := host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: 5 * time.Second,
				Grant: func(h string) bool { return e.Registry.AllowsHost(name, h) }})
			resp, err := out.Do(ctx, nil, host.OutboundRequest{URL: srv.URL})
			if want := len(scopes) > 0; want != (err == nil && resp.Status == 204) {
				t.Errorf("%s %v: outbound HTTP answered %+v %v", name, scopes, resp, err)
			}
			// The client's own dials (a relay's websocket) are held to the grant too.
			res, err := out.Client().Get(srv.URL)
			if err == nil {
				res.Body.Close()
			}
			if want := len(scopes) > 0; want != (err == nil) {
				t.Errorf("%s %v: the client's dial to %s: %v", name, scopes, hostport, err)
			}
		}
	})

	t.Run(host.ServeAPI, func(t *testing.T) {
		handle := func(context.Context, *host.BuiltinRequest) (any, error) { return nil, nil }
		api := host.BuiltinRoute{Method: "GET", Path: "/v1/me/things/{id}", Access: host.User, Scope: auth.ReadWallet, Status: 200, Handle: handle}
		own := host.BuiltinRoute{Method: "POST", Path: "/v1/plugins/things/reset", Access: host.Admin, Scope: auth.WriteWallet, Status: 204, Handle: handle}
		m := &host.Manifest{Name: "things", Version: "1.0.0", ABI: host.ABIVersion}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{api}}); err == nil || !strings.Contains(err.Error(), host.ServeAPI) {
			t.Fatalf("a built-in served /v1/me/things without %s: %v", host.ServeAPI, err)
		}
		p, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{own}})
		if err != nil {
			t.Fatalf("a built-in's own path: %v", err)
		}
		if got := p.Info().Routes; len(got) != 1 || got[0] != (host.Route{Method: "POST", Path: "/v1/plugins/things/reset", Scope: "write:wallet", Admin: true}) {
			t.Fatalf("its routes shown: %+v", got)
		}
		m = &host.Manifest{Name: "apithings", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.ServeAPI}}
		p, err = e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{api}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Info().Routes; len(got) != 1 || got[0] != (host.Route{Method: "GET", Path: "/v1/me/things/{id}", Scope: "read:wallet"}) {
			t.Fatalf("its routes shown: %+v", got)
		}
	})

	t.Run(host.WellKnownPrefix+"<name> and "+host.PresentWallets, func(t *testing.T) {
		route := host.BuiltinRoute{Method: "GET", Path: "/.well-known/capability-test", Access: host.Public, Status: 200,
			Handle: func(context.Context, *host.BuiltinRequest) (any, error) { return nil, nil }}
		m := &host.Manifest{Name: "squatter", Version: "1.0.0", ABI: host.ABIVersion}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{route}}); err == nil {
			t.Fatal("a built-in served /.well-known/capability-test without declaring it")
		}
		m = &host.Manifest{Name: "presenter", Version: "1.0.0", ABI: host.ABIVersion}
		present := func(context.Context, []*wallet.Wallet) error { return nil }
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, PresentWallets: present}); err == nil {
			t.Fatalf("a built-in presents wallets without %s", host.PresentWallets)
		}
		m = &host.Manifest{Name: "owner", Version: "1.0.0", ABI: host.ABIVersion,
			Scopes: []string{host.WellKnownPrefix + "capability-test", host.PresentWallets}}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{route}, PresentWallets: present}); err != nil {
			t.Fatal(err)
		}
		// The name is claimed: no other plugin may serve it while the owner does.
		m = &host.Manifest{Name: "second", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.WellKnownPrefix + "capability-test"}}
		if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Routes: []host.BuiltinRoute{route}}); err == nil {
			t.Fatal("two built-ins serve /.well-known/capability-test")
		}
	})

	t.Run(host.EventsAll, func(t *testing.T) {
		got := map[string]chan bool{"blind": make(chan bool, 1), "seer": make(chan bool, 1)}
		for name, scopes := range map[string][]string{"blind": nil, "seer": {host.EventsAll}} {
			m := &host.Manifest{Name: name, Version: "1.0.0", ABI: host.ABIVersion, Scopes: scopes}
			lead := func(ctx context.Context, events *host.Events) { got[name] <- events != nil; <-ctx.Done() }
			if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m, Lead: lead}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); e.Registry.RunBuiltins(ctx, e.Outbox) }()
		defer func() { cancel(); <-done }()
		if <-got["blind"] {
			t.Errorf("a built-in without %s was given the events of every wallet", host.EventsAll)
		}
		if !<-got["seer"] {
			t.Errorf("a built-in with %s was given no events", host.EventsAll)
		}
	})
}

// Capabilities for WebAssembly plugins: a built-in-only one is refused at
// install; events:all, granted by the admin, has a plugin bound to no
// wallet receive every wallet's events, and without it none.
func TestWasmCapabilities(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{})
	noop := plugintest.Build(t, "testdata/plugins/noop")
	for _, c := range []string{host.LedgerDeposit, host.LedgerResolver, host.LedgerPrices, host.PresentWallets, host.PresentInvoices, host.NodeBackend, host.ServeAPI} {
		m := wasmManifest("minter", []string{c})
		if _, err := e.Registry.Install(context.Background(), m, noop, sha(noop)); err == nil || !strings.Contains(err.Error(), "built-in only") {
			t.Errorf("installing a plugin that declares %s: %v", c, err)
		}
	}
	// nostr:sign, granted, has the instance sign the plugin's event.
	signer := newKeySigner()
	provideSigner(t, e, signer)
	hostile := plugintest.Build(t, "testdata/plugins/hostile")
	for _, name := range []string{"herald", "mute"} {
		e.Install(hostile, wasmManifest(name, []string{host.NostrSign}))
	}
	e.Enable("herald", "", host.NostrSign)
	e.Enable("mute", "")
	if r := e.Get("mute", "/sign"); r.Status != 403 || !strings.Contains(string(r.Body), "permission") {
		t.Fatalf("signing without the grant: %d %s", r.Status, r.Body)
	}
	r := e.Get("herald", "/sign")
	if r.Status != 200 {
		t.Fatalf("signing with the grant: %d %s", r.Status, r.Body)
	}
	signer.check(t, r.Body, "from a plugin")

	// wallet:receive-any and wallet:read-any: an invoice into another
	// wallet, tagged as the plugin's, and read back, only with the grant.
	bob := e.Wallet("bob-receiver", 0)
	asks := []string{"read:transaction", "write:transaction", host.ReceiveAny, host.ReadAny}
	for _, name := range []string{"till", "bare-till"} {
		e.Install(hostile, wasmManifest(name, asks))
	}
	e.Enable("till", "", asks...)
	e.Enable("bare-till", "", "read:transaction", "write:transaction")
	outcomes := func(name string) map[string]string {
		t.Helper()
		r := e.Request(name, host.PluginRequest{Method: "GET", Path: "/receive", Headers: map[string]string{"X-Wallet": bob.ID}})
		var out map[string]string
		if r.Status != 200 || json.Unmarshal(r.Body, &out) != nil {
			t.Fatalf("%s /receive: %d %s", name, r.Status, r.Body)
		}
		return out
	}
	if got := outcomes("till"); got["receive"] != "ok" || got["received_invoice"] != "ok" || got["tag"] != "till/hostile" {
		t.Fatalf("receiving with the grant: %v", got)
	}
	if got := outcomes("bare-till"); !strings.Contains(got["receive"], "permission") {
		t.Fatalf("receiving without the grant: %v", got)
	}

	for _, name := range []string{"watcher", "deaf"} {
		e.Install(noop, wasmManifest(name, []string{"read:transaction", host.EventsAll}, event.InvoiceSettled))
	}
	e.Enable("watcher", "", "read:transaction", host.EventsAll)
	e.Enable("deaf", "", "read:transaction")
	e.Wallet("alice", 1000) // an invoice of alice's settles
	e.Wallet("bob", 2000)   // and one of bob's
	watcher, _ := e.Registry.Get("watcher")
	deaf, _ := e.Registry.Get("deaf")
	e.Eventually("both wallets' events delivered to the plugin granted events:all", func() bool { return watcher.Info().Delivered == 2 })
	if n := deaf.Info().Delivered; n != 0 {
		t.Fatalf("a plugin bound to no wallet, without events:all, was delivered %d events", n)
	}

	// With event_tags "own", of every wallet's invoices only those the
	// plugin tagged.
	var m map[string]any
	_ = json.Unmarshal(wasmManifest("own-tags", []string{"read:transaction", host.EventsAll}, event.InvoiceSettled), &m)
	m["event_tags"] = "own"
	own, _ := json.Marshal(m)
	e.Install(noop, own)
	e.Enable("own-tags", "", "read:transaction", host.EventsAll)
	carol, dave := e.Wallet("carol", 0), e.Wallet("dave", 10_000)
	for _, tag := range []*ledger.Tag{{Plugin: "own-tags", Value: "mine"}, {Plugin: "watcher", Value: "not mine"}, nil} {
		inv, err := e.Ledger.CreateInvoice(context.Background(), carol.ID, ledger.NewInvoice{AmountMsat: 1000, Tag: tag})
		if err != nil {
			t.Fatal(err)
		}
		e.Pay(dave.ID, inv.LnInvoice.Bolt11)
	}
	ownTags, _ := e.Registry.Get("own-tags")
	e.Eventually("the six invoices' events delivered to the watcher (dave's funding and the three)", func() bool { return watcher.Info().Delivered == 6 })
	e.Eventually("its own invoice's event delivered", func() bool { return ownTags.Info().Delivered >= 1 })
	if n := ownTags.Info().Delivered; n != 1 {
		t.Fatalf("a plugin of event_tags own was delivered %d events, want its one invoice's", n)
	}
	bad, _ := json.Marshal(map[string]any{"name": "bad-tags", "version": "1.0.0", "abi": host.ABIVersion, "event_tags": "all"})
	if _, err := e.Registry.Install(context.Background(), bad, noop, sha(noop)); err == nil || !strings.Contains(err.Error(), "event_tags") {
		t.Fatalf("installing event_tags all: %v", err)
	}
}

// resolverFunc is a resolver that knows no input and tells when asked.
type resolverFunc func()

func (r resolverFunc) ResolvePayment(context.Context, string, ledger.PayRequest, bool) (*ledger.Resolved, error) {
	r()
	return nil, ledger.ErrUnsupportedInput
}

func wasmManifest(name string, scopes []string, events ...string) []byte {
	b, _ := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "abi": host.ABIVersion, "scopes": scopes, "events": events})
	return b
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestREADMEListsTheCapabilities: the plugin reference's table
// (docs/plugins.md, linked from the README) names every capability of the
// catalogue, and says which are built-in only.
func TestREADMEListsTheCapabilities(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/plugins.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if cells := strings.Split(line, "|"); len(cells) == 5 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = cells[3]
		}
	}
	for _, c := range host.Capabilities {
		row, ok := rows[c.Name]
		if !ok {
			t.Errorf("the plugin reference's table lacks %s", c.Name)
			continue
		}
		if strings.Contains(row, "built-in only") != c.BuiltinOnly {
			t.Errorf("the plugin reference says %s is %q; built-in only: %v", c.Name, strings.TrimSpace(row), c.BuiltinOnly)
		}
	}
}

// provideSigner has a built-in of the test provide s as the instance's
// signer (the service that answers nostr_sign).
func provideSigner(t *testing.T, e *plugintest.Env, s *keySigner) {
	t.Helper()
	m := &host.Manifest{Name: "signer", Version: "1.0.0", ABI: host.ABIVersion, Scopes: []string{host.ProvidesPrefix + host.SignerService}}
	if _, err := e.Registry.AddBuiltin(host.Builtin{Manifest: m}); err != nil {
		t.Fatal(err)
	}
	err := e.Registry.Provide("signer", host.Service{Name: host.SignerService, Value: s,
		Call: func(ctx context.Context, _ *host.Caller, req []byte) (any, error) { return s.SignEvent(ctx, req) }})
	if err != nil {
		t.Fatal(err)
	}
}

// keySigner is a signer over a key of its own, as the Nostr plugin is
// over the instance's.
type keySigner struct{ sk, pk string }

func newKeySigner() *keySigner {
	sk := gonostr.GeneratePrivateKey()
	pk, _ := gonostr.GetPublicKey(sk)
	return &keySigner{sk: sk, pk: pk}
}

func (s *keySigner) SignEvent(_ context.Context, unsigned json.RawMessage) (json.RawMessage, error) {
	var ev gonostr.Event
	if err := json.Unmarshal(unsigned, &ev); err != nil {
		return nil, err
	}
	ev.CreatedAt = gonostr.Now()
	if err := ev.Sign(s.sk); err != nil {
		return nil, err
	}
	return json.Marshal(&ev)
}

// check fails the test unless signed is an event of content signed by s.
func (s *keySigner) check(t *testing.T, signed []byte, content string) {
	t.Helper()
	var ev gonostr.Event
	if err := json.Unmarshal(signed, &ev); err != nil {
		t.Fatalf("signed event %s: %v", signed, err)
	}
	if ok, err := ev.CheckSignature(); !ok || err != nil || ev.PubKey != s.pk || ev.Content != content {
		t.Fatalf("signed event %s: signature %v %v, want by %s", signed, ok, err, s.pk)
	}
}

// TestNodeBackendIsChecked: the ledger's node joins the plugins only with
// node:backend declared, and a WebAssembly plugin may not declare it
// (TestWasmCapabilities).
func TestNodeBackendIsChecked(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{NoRun: true})
	m := &host.Manifest{Name: "node-fake", Version: "1.0.0", ABI: host.ABIVersion}
	if _, err := e.Registry.RegisterNode(m, nil); err == nil || !strings.Contains(err.Error(), host.NodeBackend) {
		t.Fatalf("a node without %s: %v", host.NodeBackend, err)
	}
	if _, err := e.Registry.Get("node-fake"); err == nil {
		t.Fatal("the refused node was registered")
	}
	m.Scopes = []string{host.NodeBackend}
	pinged := false
	if _, err := e.Registry.RegisterNode(m, func(context.Context) error { pinged = true; return nil }); err != nil {
		t.Fatal(err)
	}
	e.Registry.CheckHealth(context.Background())
	p, err := e.Registry.Get("node-fake")
	if err != nil || !pinged || p.Info().Health != "ok" {
		t.Fatalf("the node's health: pinged %v, %+v, %v", pinged, p.Info().Health, err)
	}
}

// fixedPrices gives the ledger fixed rates (sat per unit) by currency.
type fixedPrices map[string]string

func (p fixedPrices) Rate(_ context.Context, currency string) (ledger.Rate, error) {
	r, ok := p[currency]
	if !ok {
		return ledger.Rate{}, ledger.ErrUnknownCurrency
	}
	return ledger.Rate{Currency: currency, Rate: r, Sources: []string{"test"}, At: time.Now()}, nil
}
