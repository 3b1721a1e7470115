package nwc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestReplayedPayInvoicePaysOnce publishes one pay_invoice request three
// times, the last after a restart: the invoice is paid once, and every
// copy gets the first answer.
func TestReplayedPayInvoicePaysOnce(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 100_000, auth.AllScopes)
		bob, bobW := k.user("bob", 0, auth.AllScopes)
		_, a := k.connect(alice, map[string]any{"name": "app"})
		bolt11, _ := k.invoice(bob, 5_000)
		req := a.Send("pay_invoice", map[string]any{"invoice": bolt11})
		first := a.Responses(req, 1)[0]
		a.Publish(req)
		a.Responses(req, 2)
		k.restart()
		a.Publish(req)
		all := a.Responses(req, 3)
		for _, r := range all {
			if r.Code() != "" || string(r.Result) != string(first.Result) {
				t.Fatalf("answers %+v, first %+v", all, first)
			}
		}
		if got := e.Balance(bobW.ID).AvailableMsat; got != 5_000 {
			t.Fatalf("bob has %d msat after three copies of one request", got)
		}
		if got := e.Balance(aliceW.ID).AvailableMsat; got != 95_000 {
			t.Fatalf("alice has %d msat", got)
		}
	})
}

// TestInfoEventAnnouncesTheService reads the info event an app reads
// first: the methods, the notifications and the encryptions, signed by
// the service's key.
func TestInfoEventAnnouncesTheService(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, _ := k.user("alice", 0, auth.AllScopes)
	_, a := k.connect(alice, map[string]any{"name": "app"})
	var info *gonostr.Event
	deadline := time.Now().Add(30 * time.Second)
	for info == nil {
		if time.Now().After(deadline) {
			t.Fatal("no info event on the relay")
		}
		info = queryOne(t, k.relay.URL(), gonostr.Filter{Kinds: []int{13194}, Authors: []string{a.Wallet()}})
		if info == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if ok, err := info.CheckSignature(); !ok || err != nil {
		t.Fatalf("info event signature %v %v", ok, err)
	}
	for _, m := range []string{"pay_invoice", "get_balance", "get_budget", "notifications"} {
		if !strings.Contains(" "+info.Content+" ", " "+m+" ") {
			t.Fatalf("info content %q lacks %s", info.Content, m)
		}
	}
	if tg := info.Tags.Find("encryption"); tg == nil || tg[1] != "nip44_v2 nip04" {
		t.Fatalf("encryption tag %v", tg)
	}
	if tg := info.Tags.Find("notifications"); tg == nil || tg[1] != "payment_received payment_sent hold_invoice_accepted" {
		t.Fatalf("notifications tag %v", tg)
	}
}

// queryOne asks a relay for the first event of f (a REQ until EOSE).
func queryOne(t *testing.T, relay string, f gonostr.Filter) *gonostr.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, relay, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow() //nolint:errcheck
	req, _ := json.Marshal([]any{"REQ", "q", f})
	if err := c.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatal(err)
	}
	var out *gonostr.Event
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch env := gonostr.ParseMessage(string(msg)).(type) {
		case *gonostr.EventEnvelope:
			if out == nil {
				ev := env.Event
				out = &ev
			}
		case *gonostr.EOSEEnvelope:
			return out
		}
	}
}
