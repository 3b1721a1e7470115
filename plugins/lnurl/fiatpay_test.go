package lnurl_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// fiatPayment is what the tests read of a payment asked in a currency.
type fiatPayment struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	AmountMsat int64  `json:"amount_msat"`
	Fiat       *struct {
		Amount, Currency, Rate string
	} `json:"fiat"`
}

// A Lightning Address paid from inside the instance in dollars: priced at
// the instance's rate to a whole satoshi, the record keeps what was
// asked, on both databases. A retry with its Idempotency-Key, even eight
// at once, is the one payment; the same key with another amount is
// refused; eight payments at once from a wallet that holds three are
// three.
func TestPayAnAddressInACurrency(t *testing.T) {
	t.Parallel()
	cfg := lnurl.Config{Domain: "hearth.test", PublicURL: public + "/", MinSendableMsat: 1000, MaxSendableMsat: 100_000_000}
	plugintest.Each(t, plugintest.Options{Rates: "USD:100000"}, func(t *testing.T, e *plugintest.Env) { // 1,000 sat a dollar
		k := newKit(t, e, cfg, nil)
		aliceTok, alice := k.user("alice", 0)
		bobTok, bob := k.user("bob", 2_000_000)
		k.register(aliceTok, "alice")

		var p fiatPayment
		r := k.do(bobTok, "POST", "/v1/me/payments", map[string]any{"input": "alice@hearth.test", "amount": "0.5009", "currency": "usd"})
		if r.Code != 201 {
			t.Fatalf("paying 0.5009 USD: %d %s", r.Code, r.Body)
		}
		r.json(t, &p)
		if p.Status != "Settled" || p.AmountMsat != 500_000 || p.Fiat == nil || p.Fiat.Amount != "0.5009" ||
			p.Fiat.Currency != "USD" || p.Fiat.Rate != "1000" {
			t.Fatalf("payment = %+v %+v, want 500,000 msat (0.5009 USD at 1,000 sat, to the satoshi)", p, p.Fiat)
		}
		var again fiatPayment
		k.do(bobTok, "GET", "/v1/me/payments/"+p.ID, nil).json(t, &again)
		if again.Fiat == nil || *again.Fiat != *p.Fiat || again.AmountMsat != p.AmountMsat {
			t.Fatalf("read back: %+v %+v", again, again.Fiat)
		}
		if got := k.e.Balance(alice.ID).AvailableMsat; got != 500_000 {
			t.Fatalf("alice holds %d msat, want 500,000", got)
		}

		// Eight retries at once with one key: one payment.
		ids := payAtOnce(t, k, bobTok, 8, func(int) string { return "boost-1" }, `{"input":"alice@hearth.test","amount":"0.25","currency":"USD"}`)
		if len(ids) != 1 {
			t.Fatalf("eight retries with one key made payments %v, want one", ids)
		}
		if got := k.e.Balance(bob.ID).AvailableMsat; got != 2_000_000-500_000-250_000 {
			t.Fatalf("bob holds %d msat after 0.50 and 0.25 USD", got)
		}
		r = k.do(bobTok, "POST", "/v1/me/payments", map[string]any{"input": "alice@hearth.test", "amount": "0.26", "currency": "USD"},
			"Idempotency-Key", "boost-1")
		if r.Code != 422 || !strings.Contains(string(r.Body), "idempotency") {
			t.Fatalf("the key again for another amount: %d %s, want 422", r.Code, r.Body)
		}

		// 1,250,000 msat left: eight at once of 0.40 USD, three go.
		ids = payAtOnce(t, k, bobTok, 8, func(i int) string { return fmt.Sprint("tip-", i) }, `{"input":"alice@hearth.test","amount":"0.40","currency":"USD"}`)
		if len(ids) != 3 {
			t.Fatalf("eight payments of 400,000 msat from 1,250,000 made %d, want 3", len(ids))
		}
		if got := k.e.Balance(bob.ID).AvailableMsat; got != 50_000 {
			t.Fatalf("bob holds %d msat, want 50,000", got)
		}
		k.e.CheckLedger()

		for _, c := range []struct {
			body   map[string]any
			status int
		}{
			{map[string]any{"input": "alice@hearth.test", "amount": "0.0009", "currency": "USD"}, 422}, // under a satoshi
			{map[string]any{"input": "alice@hearth.test", "amount": "0.01", "currency": "XAU"}, 422},
			{map[string]any{"input": "alice@hearth.test", "amount": "0.01", "currency": "USD", "amount_msat": 10_000}, 400},
			{map[string]any{"input": "alice@hearth.test", "amount": "0.01"}, 400},
		} {
			if r := k.do(bobTok, "POST", "/v1/me/payments", c.body); r.Code != c.status {
				t.Errorf("%v: %d %s, want %d", c.body, r.Code, r.Body, c.status)
			}
		}
	})
}

// payAtOnce sends n payments of body at once as token, the i-th with the
// Idempotency-Key key(i), and returns the ids of the payments made.
func payAtOnce(t *testing.T, k *kit, token string, n int, key func(int) string, body string) map[string]bool {
	t.Helper()
	var mu sync.Mutex
	ids, errs := map[string]bool{}, []string{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", k.srv.URL+"/v1/me/payments", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key(i))
			resp, err := http.DefaultClient.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err.Error())
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var p fiatPayment
			switch {
			case (resp.StatusCode == 201 || resp.StatusCode == 200) && json.Unmarshal(b, &p) == nil && p.Status == "Settled":
				ids[p.ID] = true
			case resp.StatusCode == 422 && strings.Contains(string(b), "insufficient_funds"):
			default:
				errs = append(errs, fmt.Sprintf("%d %s", resp.StatusCode, b))
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("answers besides a payment and insufficient funds: %v", errs)
	}
	return ids
}
