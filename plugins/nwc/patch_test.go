package nwc_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestConnectionChange changes a connection through PATCH, the caller's
// and the admin's: a lowered budget keeps what the period used, methods
// taken away are RESTRICTED at once and given back work again, null
// removes the budget; bad values are 400 or 422, another's connection is
// 404, and each change shows in the record.
func TestConnectionChange(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, _ := k.user("alice", 100_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		admin, err := k.tokens.Issue(auth.AdminUserID, auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		conn, a := k.connect(alice, map[string]any{"name": "zapper", "budget": map[string]any{"max_msat": 10_000, "renewal": "monthly"}})
		path := "/v1/me/nwc/connections/" + conn.ID
		for range 2 {
			b, _ := k.invoice(bob, 1_000)
			if r := a.Call("pay_invoice", map[string]any{"invoice": b}); r.Code() != "" {
				t.Fatalf("paying: %+v", r)
			}
		}
		var got nwc.Connection
		r := k.do(alice, "PATCH", path, map[string]any{"name": "tipper", "methods": []string{"get_balance", "get_info"},
			"budget": map[string]any{"max_msat": 3_000, "renewal": "monthly"}})
		if r.Code != http.StatusOK {
			t.Fatalf("PATCH: %d %s", r.Code, r.Body)
		}
		r.decode(t, &got)
		if got.Name != "tipper" || len(got.Methods) != 2 || got.Budget == nil || got.Budget.MaxMsat != 3_000 || got.Budget.UsedMsat != 2_000 {
			t.Fatalf("after PATCH: %+v budget %+v", got, got.Budget)
		}
		b, _ := k.invoice(bob, 1_000)
		if r := a.Call("pay_invoice", map[string]any{"invoice": b}); r.Code() != "RESTRICTED" {
			t.Fatalf("pay_invoice taken away: %+v", r)
		}
		k.do(alice, "PATCH", path, map[string]any{"methods": []string{"pay_invoice", "get_balance"}}).decode(t, &got)
		// Its info event lists its methods as changed: republished, dated
		// anew (two changes in one second: a second apart), it replaced
		// the one the relay held.
		poll.Until(t, time.Minute, func() error {
			evs := k.relay.Stored(gonostr.Filter{Kinds: []int{13194}, Authors: []string{conn.WalletPubkey}})
			if len(evs) != 1 || evs[0].Content != strings.Join(got.Methods, " ") || int64(evs[0].CreatedAt) < conn.CreatedAt.Unix()+2 {
				return fmt.Errorf("the relay holds %v for methods %v", evs, got.Methods)
			}
			return nil
		})
		if r := a.Call("pay_invoice", map[string]any{"invoice": b}); r.Code() != "" {
			t.Fatalf("pay_invoice given back: %+v", r)
		}
		b2, _ := k.invoice(bob, 1_000)
		if r := a.Call("pay_invoice", map[string]any{"invoice": b2}); r.Code() != "QUOTA_EXCEEDED" {
			t.Fatalf("past the lowered budget: %+v", r)
		}

		for _, c := range []struct {
			body   string
			status int
		}{
			{`{"methods":["steal"]}`, 422},
			{`{"methods":[]}`, 422},
			{`{"name":""}`, 422},
			{`{"budget":{"max_msat":0}}`, 422},
			{`{"budget":"much"}`, 400},
			{`{"colour":"red"}`, 400},
		} {
			if r := k.do(alice, "PATCH", path, rawJSON(c.body)); r.Code != c.status {
				t.Fatalf("%s: %d %s, want %d", c.body, r.Code, r.Body, c.status)
			}
		}
		if r := k.do(bob, "PATCH", path, map[string]any{"name": "mine"}); r.Code != http.StatusNotFound {
			t.Fatalf("bob's PATCH of alice's connection: %d %s", r.Code, r.Body)
		}
		got = nwc.Connection{}
		k.do(admin, "PATCH", "/v1/nwc/connections/"+conn.ID, map[string]any{"budget": nil}).decode(t, &got)
		if got.Budget != nil || got.Name != "tipper" {
			t.Fatalf("after the admin removed the budget: %+v", got)
		}
		if r := a.Call("pay_invoice", map[string]any{"invoice": b2}); r.Code() != "" {
			t.Fatalf("without a budget: %+v", r)
		}
		if breaches, err := e.Ledger.Check(t.Context()); err != nil || len(breaches) > 0 {
			t.Fatalf("ledger check: %v %+v", err, breaches)
		}
	})
}

// TestConnectionBudgetLoweredDuringPayments lowers a connection's budget
// from 50,000 to 10,000 msat while its app pays 50 invoices of 1,000
// msat at once: the PATCH's answer tells what was used at its instant,
// and every payment that committed after it was held to the lowered
// limit.
func TestConnectionBudgetLoweredDuringPayments(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, func(c *nwc.Config) { c.Burst = 1000 })
		alice, _ := k.user("alice", 500_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		conn, a := k.connect(alice, map[string]any{"name": "zapper", "budget": map[string]any{"max_msat": 50_000, "renewal": "monthly"}})
		invoices := make([]string, 50)
		for i := range invoices {
			invoices[i], _ = k.invoice(bob, 1_000)
		}
		answers := make([]nostrtest.Response, len(invoices))
		var changed nwc.Connection
		var wg sync.WaitGroup
		for i, inv := range invoices {
			if i == 10 { // once some have paid, among the others
				wg.Go(func() {
					e.Eventually("some payments charged", func() bool {
						var c nwc.Connection
						k.do(alice, "GET", "/v1/me/nwc/connections/"+conn.ID, nil).decode(t, &c)
						return c.Budget.UsedMsat >= 2_000
					})
					k.do(alice, "PATCH", "/v1/me/nwc/connections/"+conn.ID,
						map[string]any{"budget": map[string]any{"max_msat": 10_000, "renewal": "monthly"}}).decode(t, &changed)
				})
			}
			wg.Go(func() { answers[i] = a.Call("pay_invoice", map[string]any{"invoice": inv}) })
		}
		wg.Wait()
		paid := int64(0)
		for _, r := range answers {
			switch r.Code() {
			case "":
				paid += 1_000
			case "QUOTA_EXCEEDED":
			default:
				t.Fatalf("answer %+v", r)
			}
		}
		var shown nwc.Connection
		k.do(alice, "GET", "/v1/me/nwc/connections/"+conn.ID, nil).decode(t, &shown)
		atPatch, used := changed.Budget.UsedMsat, shown.Budget.UsedMsat
		t.Logf("used at the PATCH %d msat, after the race %d msat, paid %d msat", atPatch, used, paid)
		if used != paid || atPatch > 50_000 || shown.Budget.MaxMsat != 10_000 {
			t.Fatalf("used %d, paid %d, at the PATCH %d, shown %+v", used, paid, atPatch, shown.Budget)
		}
		if atPatch >= 10_000 && used != atPatch {
			t.Fatalf("%d msat paid after the budget fell to 10000 with %d used", used-atPatch, atPatch)
		}
		if atPatch < 10_000 && used > 10_000 {
			t.Fatalf("%d msat used past the lowered 10000", used)
		}
		if breaches, err := e.Ledger.Check(t.Context()); err != nil || len(breaches) > 0 {
			t.Fatalf("ledger check: %v %+v", err, breaches)
		}
	})
}

// rawJSON is a body sent as written.
func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }
