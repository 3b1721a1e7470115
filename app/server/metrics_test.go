package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host/wasm"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/plugins/webhooks"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestMetricsScriptedRun runs an instance with metrics on through a
// script over HTTP: alice is funded from outside (a Lightning invoice),
// pays bob inside the instance, bob zaps alice's Lightning Address (an
// internal payment, whose receipt goes to a relay), alice pays an
// invoice of another node (settled, fee 1000) and one that fails, her
// webhook of payment.failed is delivered, and a WebAssembly plugin gets
// her invoices' events. Then every family is there with the values the
// run implies, and no label carries a wallet, a user, an address or an
// amount.
func TestMetricsScriptedRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		inner, err := embedded.New(ctx, db, "regtest")
		if err != nil {
			t.Fatal(err)
		}
		outside, err := embedded.New(ctx, storetest.SQLite(t), "regtest")
		if err != nil {
			t.Fatal(err)
		}
		node := &outsideNode{Node: inner, outside: outside, preimages: map[string]string{}, failing: map[string]bool{}}
		relay, published := startRelay(t)
		var hooked atomic.Int64
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hooked.Add(1) }))
		t.Cleanup(hook.Close)

		srv := httptest.NewUnstartedServer(nil)
		srv.Start()
		t.Cleanup(srv.Close)
		cfg := config.Default()
		cfg.Plugins.AllowPrivateHosts = true
		cfg.PublicURL, cfg.Domain = srv.URL, strings.TrimPrefix(srv.URL, "http://")
		m := metrics.New("test")
		a, err := app.New(ctx, cfg, db, app.Options{
			Node:     node,
			Builtins: app.Features(webhooks.Descriptor(nil), lnurl.Descriptor(), nostr.Descriptor(nil)),
			Metrics:  m,
			Wasm: func(w *wasm.Options) {
				w.CacheDir, w.CPUShare, w.CPUBurst, w.NormalPriority = plugintest.CompileCacheDir(), plugintest.CPUShare, plugintest.CPUBurst, true
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		if err := a.Start(ctx); err != nil {
			t.Fatal(err)
		}
		srv.Config.Handler = server.New(a, "test", "now")
		c := client{t: t, base: srv.URL}
		tokA, err := a.Tokens.Issue("alice", auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		tokB, err := a.Tokens.Issue("bob", auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		var me struct{ ID string }
		c.do(tokA, "GET", "/v1/me", nil, &me)
		aliceWallet := me.ID
		c.do(tokB, "GET", "/v1/me", nil, &me)
		bobWallet := me.ID

		// A WebAssembly plugin bound to alice's wallet gets her invoices' events.
		module := plugintest.Build(t, filepath.Join("..", "..", "host", "testdata", "plugins", "noop"))
		man, _ := json.Marshal(map[string]any{"name": "noop", "version": "1.0.0", "abi": "hearth_v1",
			"scopes": []string{"read:transaction"}, "events": []string{event.InvoiceSettled}})
		if _, err := a.Registry.Install(ctx, man, module, sha(module)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Registry.Enable(ctx, plugintest.Admin, "noop", []string{"read:transaction"}, aliceWallet); err != nil {
			t.Fatal(err)
		}
		if code := c.do(tokA, "POST", "/v1/me/webhooks", map[string]any{"url": hook.URL, "events": []string{event.PaymentFailed}}, nil); code != 201 {
			t.Fatalf("creating the webhook: %d", code)
		}
		alicePK := newKey(t)
		if code := c.do(tokA, "POST", "/v1/me/lightning-address", map[string]any{"username": "alice", "allows_nostr": true,
			"nostr_pubkey": alicePK}, nil); code != 201 {
			t.Fatalf("registering alice's address: %d", code)
		}

		var inv struct {
			LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
		}
		c.do(tokA, "POST", "/v1/me/invoices", map[string]any{"amount_msat": 100_000}, &inv)
		if err := node.PayAsOutsider(ctx, inv.LnInvoice.Bolt11); err != nil {
			t.Fatal(err)
		}
		c.do(tokB, "POST", "/v1/me/invoices", map[string]any{"amount_msat": 25_000}, &inv)
		pay := func(token, bolt11 string) int {
			return c.do(token, "POST", "/v1/me/payments", map[string]any{"input": bolt11}, nil)
		}
		if code := pay(tokA, inv.LnInvoice.Bolt11); code != 201 {
			t.Fatalf("alice paying bob: %d", code)
		}
		if code := pay(tokB, zapInvoice(t, c, relay, alicePK, 21_000)); code != 201 {
			t.Fatalf("bob zapping alice: %d", code)
		}
		if code := pay(tokA, node.invoice(t, 7_000, false)); code != 201 {
			t.Fatalf("alice paying outside: %d", code)
		}
		pay(tokA, node.invoice(t, 3_000, true)) // fails at the node

		wants := []want{
			{"hearth_payments_total", []string{"ledger=internal", "status=settled"}, 2},
			{"hearth_payments_total", []string{"ledger=lightning", "status=settled"}, 1},
			{"hearth_payments_total", []string{"ledger=lightning", "status=failed"}, 1},
			{"hearth_payments_total", []string{"ledger=onchain"}, 0},
			{"hearth_payments_amount_msat_total", []string{"ledger=internal"}, 46_000},
			{"hearth_payments_amount_msat_total", []string{"ledger=lightning"}, 7_000},
			{"hearth_payments_fee_msat_total", []string{"ledger=lightning"}, outsideFee},
			{"hearth_payments_fee_msat_total", []string{"ledger=internal"}, 0},
			{"hearth_payment_duration_seconds", []string{"ledger=internal"}, 2},
			{"hearth_payment_duration_seconds", []string{"ledger=lightning"}, 1},
			{"hearth_invoices_total", []string{"ledger=lightning", "status=settled"}, 1},
			{"hearth_invoices_total", []string{"ledger=internal", "status=settled"}, 2},
			{"hearth_invoices_amount_msat_total", []string{"ledger=lightning"}, 100_000},
			{"hearth_invoices_amount_msat_total", []string{"ledger=internal"}, 46_000},
			{"hearth_invoices_created_total", nil, 3},
			{"hearth_http_request_duration_seconds", []string{"route=/v1/me/payments", "method=POST"}, 4},
			{"hearth_http_request_duration_seconds", []string{"route=/v1/me/payments", "method=POST", "code=201"}, 4}, // the failed one too
			{"hearth_http_request_duration_seconds", []string{"route=/v1/me/invoices", "method=POST", "code=201"}, 2},
			{"hearth_webhook_deliveries_total", []string{"outcome=delivered"}, 1},
			{"hearth_webhook_deliveries_total", nil, 1},
			{"hearth_relay_publications_total", []string{"kind=zap_receipt", "outcome=published"}, 1},
			{"hearth_relay_publications_total", nil, 1},
			{"hearth_plugin_calls_total", []string{"plugin=noop", "call=event", "outcome=ok"}, 2},
			{"hearth_plugin_calls_total", []string{"plugin=noop"}, 2},
			{"hearth_plugin_call_duration_seconds", []string{"plugin=noop", "call=event"}, 2},
			{"hearth_plugin_faults_total", []string{"plugin=noop"}, 0},
			{"hearth_outbox_consumer_lag_events", []string{"consumer=host:streams"}, 0},
			{"hearth_outbox_consumer_lag_events", []string{"consumer=builtin:nostr"}, 0},
			{"hearth_outbox_consumer_lag_events", []string{"consumer=plugin:noop"}, 0},
			{"hearth_outbox_consumer_lag_seconds", []string{"consumer=plugin:noop"}, 0},
			{"hearth_node_up", []string{"backend=embedded"}, 1},
			{"hearth_build_info", []string{"version=test"}, 1},
		}
		var all []series
		eventually(t, "the run's metrics", func() error {
			all = gather(t, m)
			var errs []error
			for _, w := range wants {
				if err := w.check(all); err != nil {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		})
		if hooked.Load() != 1 || published.Load() != 1 {
			t.Errorf("the webhook got %d deliveries and the relay %d receipts, want 1 and 1", hooked.Load(), published.Load())
		}
		for _, name := range []string{"hearth_outbox_head", "hearth_node_block_height", "hearth_node_channels", "hearth_db_connections",
			"hearth_db_connections_max", "hearth_db_waits_total", "hearth_db_wait_seconds_total", "go_goroutines", "process_cpu_seconds_total"} {
			if _, found := sum(all, name); !found {
				t.Errorf("no family %s", name)
			}
		}
		if head, _ := sum(all, "hearth_outbox_head"); head < 5 {
			t.Errorf("hearth_outbox_head = %v, want the run's 7 events (5 on PostgreSQL, where an internal payment's two share one)", head)
		}
		private := []string{aliceWallet, bobWallet, "alice", "bob", "alice@" + cfg.Domain, inv.LnInvoice.Bolt11}
		for _, n := range []int{100_000, 25_000, 21_000, 46_000, 7_000, 3_000} {
			private = append(private, strconv.Itoa(n))
		}
		noPrivateLabel(t, all, private)
		// The API's listener never serves the metrics.
		if code := c.do("", "GET", metrics.Path, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s on the API's listener = %d, want 404", metrics.Path, code)
		}
	})
}

// noPrivateLabel fails when a label's value is one of private, or its
// name is not one of the few Hearth's families use.
func noPrivateLabel(t *testing.T, all []series, private []string) {
	t.Helper()
	allowed := map[string]bool{"ledger": true, "status": true, "route": true, "method": true, "code": true, "plugin": true,
		"call": true, "outcome": true, "kind": true, "consumer": true, "backend": true, "pool": true, "state": true,
		"version": true, "goversion": true}
	for _, s := range all {
		for k, v := range s.labels {
			if strings.HasPrefix(s.name, "hearth_") && !allowed[k] {
				t.Errorf("%s: label %s=%q is none of the allowed names", s.name, k, v)
			}
			for _, p := range private {
				if p != "" && strings.Contains(v, p) {
					t.Errorf("%s: label %s=%q carries %q", s.name, k, v, p)
				}
			}
		}
	}
}

// zapInvoice asks alice's address for an invoice of msat zapped by a new
// Nostr key, its receipt to relay.
func zapInvoice(t *testing.T, c client, relay, recipient string, msat int64) string {
	t.Helper()
	var pp struct {
		Callback string `json:"callback"`
	}
	if code := c.do("", "GET", "/.well-known/lnurlp/alice", nil, &pp); code != 200 {
		t.Fatalf("alice's payRequest: %d", code)
	}
	ev := &gonostr.Event{Kind: 9734, Content: "zap", CreatedAt: gonostr.Now(), Tags: gonostr.Tags{
		{"relays", relay}, {"amount", strconv.FormatInt(msat, 10)}, {"p", recipient}}}
	if err := ev.Sign(gonostr.GeneratePrivateKey()); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(ev)
	q := url.Values{"amount": {strconv.FormatInt(msat, 10)}, "nostr": {string(raw)}}
	var out struct{ PR string }
	cb := strings.TrimPrefix(pp.Callback, c.base)
	if code := c.do("", "GET", cb+"?"+q.Encode(), nil, &out); code != 200 || out.PR == "" {
		t.Fatalf("alice's zap callback: %d", code)
	}
	return out.PR
}

func newKey(t *testing.T) string {
	pk, err := gonostr.GetPublicKey(gonostr.GeneratePrivateKey())
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

func sha(b []byte) string { return fmt.Sprintf("%x", sha256.Sum256(b)) }
