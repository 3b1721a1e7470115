package lnurl_test

import (
	"testing"

	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// Limits set in a currency are converted at the instance's rate at each
// payRequest and callback, and narrow the limits in msat; without a rate
// (no rates plugin here), the limits in msat alone hold. A Lightning
// Address payment from inside the instance is held to them too.
func TestLimitsInACurrency(t *testing.T) {
	t.Parallel()
	cfg := lnurl.Config{Domain: "hearth.test", PublicURL: public + "/", MinSendableMsat: 1000, MaxSendableMsat: 100_000_000,
		MinSendable: "0.10 USD", MaxSendable: "5 USD"}
	plugintest.Each(t, plugintest.Options{Rates: "USD:100000"}, func(t *testing.T, e *plugintest.Env) { // 1,000 sat a dollar
		k := newKit(t, e, cfg, nil)
		aliceTok, _ := k.user("alice", 0)
		bobTok, _ := k.user("bob", 10_000_000)
		k.register(aliceTok, "alice")
		var pr lnurl.PayParams
		k.do("", "GET", "/.well-known/lnurlp/alice", nil).json(t, &pr)
		if pr.MinSendable != 100_000 || pr.MaxSendable != 5_000_000 {
			t.Fatalf("payRequest sendable %d..%d, want 100,000..5,000,000 msat (0.10..5 USD at 1,000 sat)", pr.MinSendable, pr.MaxSendable)
		}
		cb := k.proxied(pr.Callback)
		lnurlError(t, k.do("", "GET", cb+"?amount=99999", nil), 422, "under 0.10 USD")
		lnurlError(t, k.do("", "GET", cb+"?amount=5000001", nil), 422, "over 5 USD")
		if r := k.do("", "GET", cb+"?amount=200000", nil); r.Code != 200 {
			t.Fatalf("0.20 USD: %d %s", r.Code, r.Body)
		}
		r := k.do(bobTok, "POST", "/v1/me/payments", map[string]any{"input": "alice@hearth.test", "amount_msat": 50_000})
		if r.Code != 422 {
			t.Fatalf("paying 0.05 USD to the address from inside: %d %s, want 422", r.Code, r.Body)
		}
	})
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, cfg, nil)
		aliceTok, _ := k.user("alice", 0)
		k.register(aliceTok, "alice")
		var pr lnurl.PayParams
		k.do("", "GET", "/.well-known/lnurlp/alice", nil).json(t, &pr)
		if pr.MinSendable != 1000 || pr.MaxSendable != 100_000_000 {
			t.Fatalf("without a rate, sendable %d..%d, want the limits in msat", pr.MinSendable, pr.MaxSendable)
		}
	})
	for _, bad := range []string{"0.10", "USD", "ten USD", "0.10 DOLLARS", "-1 USD"} {
		c := cfg
		c.MinSendable = bad
		if err := c.Validate(); err == nil {
			t.Errorf("min_sendable %q: accepted", bad)
		}
	}
}
