package nwc_test

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestRefusalsHaveTheirCodes answers each refusal with its NIP-47 code:
// a stranger's key and a revoked connection UNAUTHORIZED, a method the
// connection was not given RESTRICTED, a payment beyond the balance
// INSUFFICIENT_BALANCE or the budget QUOTA_EXCEEDED, an unpayable invoice
// PAYMENT_FAILED, malformed params OTHER, an unknown encryption
// UNSUPPORTED_ENCRYPTION, a flood
// RATE_LIMITED; an expired request gets no answer at all.
func TestRefusalsHaveTheirCodes(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		var ahead atomic.Int64 // how far the plugin's clock is ahead
		k := newKit(t, e, func(c *nwc.Config) {
			c.Burst, c.RatePerMinute = 20, 1
			c.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
		})
		alice, _ := k.user("alice", 50_000, auth.AllScopes)
		bob, _ := k.user("bob", 0, auth.AllScopes)
		_, readOnly := k.connect(alice, map[string]any{"name": "reader", "methods": []string{"get_balance", "get_info"}})
		_, budgeted := k.connect(alice, map[string]any{"name": "spender", "budget": map[string]any{"max_msat": 10_000, "renewal": "daily"}})

		b1, _ := k.invoice(bob, 1_000)
		if r := readOnly.Call("pay_invoice", map[string]any{"invoice": b1}); r.Code() != "RESTRICTED" {
			t.Fatalf("pay without pay_invoice: %+v", r)
		}
		big, _ := k.invoice(bob, 9_000)
		var paid struct{ Preimage string }
		budgeted.Call("pay_invoice", map[string]any{"invoice": big}).Decode(t, &paid)
		over, _ := k.invoice(bob, 2_000)
		if r := budgeted.Call("pay_invoice", map[string]any{"invoice": over}); r.Code() != "QUOTA_EXCEEDED" {
			t.Fatalf("pay over the budget: %+v", r)
		}
		var budget struct {
			Used    int64  `json:"used_budget"`
			Total   int64  `json:"total_budget"`
			Renews  int64  `json:"renews_at"`
			Renewal string `json:"renewal_period"`
		}
		budgeted.Call("get_budget", nil).Decode(t, &budget)
		if budget.Used != 9_000 || budget.Total != 10_000 || budget.Renewal != "daily" || budget.Renews <= time.Now().Unix() {
			t.Fatalf("get_budget %+v", budget)
		}
		_, rich := k.connect(alice, map[string]any{"name": "rich"})
		huge, _ := k.invoice(bob, 45_000)
		if r := rich.Call("pay_invoice", map[string]any{"invoice": huge}); r.Code() != "INSUFFICIENT_BALANCE" {
			t.Fatalf("pay beyond the balance: %+v", r)
		}
		if r := rich.Call("pay_invoice", map[string]any{"invoice": big}); r.Code() != "PAYMENT_FAILED" {
			t.Fatalf("pay an invoice already paid: %+v", r)
		}
		if r := rich.Call("make_invoice", map[string]any{"amount": "lots"}); r.Code() != "OTHER" {
			t.Fatalf("malformed params: %+v", r)
		}
		if r := rich.Call("get_balance", nil, func(ev *gonostr.Event) {
			ev.Tags = append(nostrtest.WithoutTag(ev.Tags, "encryption"), gonostr.Tag{"encryption", "nip99"})
		}); r.Code() != "UNSUPPORTED_ENCRYPTION" {
			t.Fatalf("an unknown encryption: %+v", r)
		}

		// A stranger's key, and a revoked connection's, are UNAUTHORIZED.
		stranger := nostrtest.Connect(t, "nostr+walletconnect://"+rich.Wallet()+"?relay="+k.relay.URL()+"&secret="+gonostr.GeneratePrivateKey())
		if r := stranger.Call("get_balance", nil); r.Code() != "UNAUTHORIZED" || len(r.Result) > 0 && string(r.Result) != "null" {
			t.Fatalf("a stranger: %+v", r)
		}
		c, revoked := k.connect(alice, map[string]any{"name": "revoked"})
		if r := k.do(alice, "DELETE", "/v1/me/nwc/connections/"+c.ID, nil); r.Code != http.StatusNoContent {
			t.Fatalf("revoking: %d %s", r.Code, r.Body)
		}
		if r := revoked.Call("get_balance", nil); r.Code() != "UNAUTHORIZED" {
			t.Fatalf("a revoked connection: %+v", r)
		}

		// An expired request is ignored: the next one is answered, it never.
		late := readOnly.Send("get_balance", nil, func(ev *gonostr.Event) {
			ev.Tags = append(ev.Tags, gonostr.Tag{"expiration", strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10)})
		})
		readOnly.Call("get_info", nil).Decode(t, &map[string]any{})
		for _, ev := range readOnly.Events() {
			if ev.Tags.FindWithValue("e", late.ID) != nil {
				t.Errorf("an expired request was answered")
			}
		}

		// A flood: the bucket of 20 empties, at one token a minute. A
		// limited request sent again once the bucket has a token again is
		// answered anew (a rate limit is not stored as its answer).
		limited := 0
		var last *gonostr.Event
		for range 25 {
			req := readOnly.Send("get_info", nil)
			if readOnly.Responses(req, 1)[0].Code() == "RATE_LIMITED" {
				limited++
				last = req
			}
		}
		if limited < 4 {
			t.Fatalf("%d of 25 requests over a bucket of 20 were RATE_LIMITED", limited)
		}
		ahead.Store(int64(2 * time.Minute))
		readOnly.Publish(last)
		// Its first answer was RATE_LIMITED; one of those that follow is
		// the new answer. (On a busy machine a relay may hand the stored
		// request to the wallet again before it is sent again, after a
		// subscription is made anew: another RATE_LIMITED comes first.)
		for n := 2; ; n++ {
			again := readOnly.Responses(last, n)
			if again[n-1].Code() == "" {
				break
			}
			if n == 5 {
				t.Fatalf("a limited request sent again later: %+v", again)
			}
		}
	})
}
