package withdraw_test

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugins/withdraw"
	"github.com/hearthwallet/hearth/testkit/npmtest"
)

// A link is made, read as LUD-03 and LUD-17 say, and claimed by another
// wallet of the instance: the claim is answered OK at once and paid
// through the link's credential, once, and the link's owner hears of it
// (withdraw.claimed on the event stream); a second use of a single-use
// link is refused; the record shows the claim.
func TestLinkIsMadeReadAndClaimed(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		alice, aliceW := k.user("alice", 100_000_000)
		bob, bobW := k.user("bob", 0)
		l := k.link(alice, map[string]any{"title": "Coffee voucher", "min_msat": 1000, "max_msat": 50_000})
		if l.WalletID != aliceW.ID || l.Uses != 1 || l.Used != 0 || !strings.HasPrefix(l.LNURL, "LNURL1") ||
			!strings.HasPrefix(l.LNURLW, "lnurlw://") {
			t.Fatalf("link %+v", l)
		}
		wr := k.request(l)
		if wr.Tag != "withdrawRequest" || wr.MinWithdrawable != 1000 || wr.MaxWithdrawable != 50_000 ||
			wr.DefaultDescription != "Coffee voucher" || len(wr.K1) != 64 || !strings.HasSuffix(wr.Callback, "/callback") {
			t.Fatalf("withdrawRequest %+v", wr)
		}
		// LUD-17: the lnurlw:// form is the same URL.
		if r := k.do("", "GET", "http://"+strings.TrimPrefix(l.LNURLW, "lnurlw://"), nil); r.Code != http.StatusOK {
			t.Fatalf("the lnurlw:// URL: %d %s", r.Code, r.Body)
		}
		id, pr := k.invoice(bob, 21_000)
		if code, s := k.claim(wr, wr.K1, pr); code != http.StatusOK || s.Status != "OK" {
			t.Fatalf("claiming: %d %+v", code, s)
		}
		k.e.Eventually("bob's invoice paid by the link", func() bool { return k.settled(bob, id) })
		if got := k.e.Balance(bobW.ID).AvailableMsat; got != 21_000 {
			t.Errorf("bob has %d msat, want 21000", got)
		}
		if got := k.e.Balance(aliceW.ID).AvailableMsat; got != 100_000_000-21_000 {
			t.Errorf("alice has %d msat", got)
		}
		_, pr2 := k.invoice(bob, 2_000)
		if code, s := k.claim(wr, wr.K1, pr2); code < 400 || s.Status != "ERROR" || !strings.Contains(s.Reason, "used") {
			t.Errorf("a second use of a single-use link: %d %+v", code, s)
		}
		got := k.get(alice, l.ID)
		if got.Used != 1 || len(got.Claims) != 1 || got.Claims[0].State != "paid" || got.Claims[0].AmountMsat != 21_000 ||
			got.Claims[0].PaymentID == nil {
			t.Errorf("the link after its claim: %+v", got)
		}
		data := k.event(alice, withdraw.Claimed, func(b []byte) bool { return strings.Contains(string(b), l.ID) })
		var ev struct {
			Data withdraw.ClaimedEvent `json:"data"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		if c := ev.Data; c.LinkID != l.ID || c.Title != "Coffee voucher" || c.ID != got.Claims[0].ID || c.AmountMsat != 21_000 ||
			c.State != "pending" {
			t.Errorf("the withdraw.claimed event %s", data)
		}
		// Bob cannot read alice's link.
		if r := k.do(bob, "GET", "/v1/me/withdraw-links/"+l.ID, nil); r.Code != http.StatusNotFound {
			t.Errorf("another wallet's link: %d %s", r.Code, r.Body)
		}
	})
}

// Concurrent callbacks take exactly the uses there are: of 50 different
// invoices, one is paid by a single-use link, five by a five-use link,
// and one by a link that waits an hour between two uses.
func TestConcurrentClaimsTakeTheUsesThereAre(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		alice, aliceW := k.user("alice", 100_000_000)
		bob, bobW := k.user("bob", 0)
		paid := int64(0)
		for _, c := range []struct {
			uses, wait, want int
		}{{1, 0, 1}, {5, 0, 5}, {5, 3600, 1}} {
			l := k.link(alice, map[string]any{"min_msat": 1000, "max_msat": 10_000, "uses": c.uses, "wait_seconds": c.wait})
			wr := k.request(l)
			const n = 50
			prs := make([]string, n)
			for i := range prs {
				_, prs[i] = k.invoice(bob, 1000+int64(i))
			}
			var mu sync.Mutex
			var ok []int
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if code, s := k.claim(wr, wr.K1, prs[i]); code == http.StatusOK && s.Status == "OK" {
						mu.Lock()
						ok = append(ok, i)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(ok) != c.want {
				t.Fatalf("uses %d, wait %d: %d claims answered OK, want %d", c.uses, c.wait, len(ok), c.want)
			}
			for _, i := range ok {
				paid += 1000 + int64(i)
			}
			k.e.Eventually("the claims paid", func() bool { return k.e.Balance(bobW.ID).AvailableMsat == paid })
			got := k.get(alice, l.ID)
			if got.Used != c.want || len(got.Claims) != c.want {
				t.Errorf("uses %d, wait %d: the link %+v", c.uses, c.wait, got)
			}
			var claims []string
			for _, cl := range got.Claims {
				claims = append(claims, cl.ID)
			}
			events := k.claimedEvents(l.ID)
			slices.Sort(claims)
			slices.Sort(events)
			if !slices.Equal(claims, events) {
				t.Errorf("uses %d, wait %d: withdraw.claimed events of %q, claims %q", c.uses, c.wait, events, claims)
			}
		}
		if got := k.e.Balance(aliceW.ID).AvailableMsat; got != 100_000_000-paid {
			t.Errorf("alice has %d msat, want %d", got, 100_000_000-paid)
		}
		k.e.CheckLedger()
	})
}

// The refusals: a k1 that is not the link's, an amount outside its
// limits, the same invoice submitted again (no second use, no second
// payment), a wallet that cannot pay (the link stays usable), an expired
// link, and a link revoked while its claim waits to be paid (the
// ledger refuses it, nothing is paid).
func TestRefusals(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		alice, aliceW := k.user("alice", 1_000_000)
		bob, bobW := k.user("bob", 0)
		l := k.link(alice, map[string]any{"min_msat": 2000, "max_msat": 10_000, "uses": 3})
		wr := k.request(l)
		_, pr := k.invoice(bob, 5000)
		if code, s := k.claim(wr, strings.Repeat("0", 64), pr); code != http.StatusBadRequest || s.Status != "ERROR" {
			t.Errorf("a wrong k1: %d %+v", code, s)
		}
		_, big := k.invoice(bob, 20_000)
		if code, s := k.claim(wr, wr.K1, big); code != http.StatusBadRequest || !strings.Contains(s.Reason, "between 2000 and 10000") {
			t.Errorf("an amount over the link's: %d %+v", code, s)
		}
		if code, s := k.claim(wr, wr.K1, "lnbc1nonsense"); code != http.StatusBadRequest || s.Status != "ERROR" {
			t.Errorf("no invoice: %d %+v", code, s)
		}
		for range 3 { // the same invoice, again and again: one use, one payment
			if code, s := k.claim(wr, wr.K1, pr); code != http.StatusOK || s.Status != "OK" {
				t.Fatalf("the same invoice again: %d %+v", code, s)
			}
		}
		k.e.Eventually("the claim paid", func() bool { return k.e.Balance(bobW.ID).AvailableMsat == 5000 })
		if got := k.get(alice, l.ID); got.Used != 1 || len(got.Claims) != 1 {
			t.Errorf("after the same invoice three times: %+v", got)
		}

		// A wallet that cannot pay answers ERROR and keeps its uses.
		poor, _ := k.user("poor", 1500)
		pl := k.link(poor, map[string]any{"min_msat": 1000, "max_msat": 10_000})
		pwr := k.request(pl)
		_, pr3 := k.invoice(bob, 3000)
		if code, s := k.claim(pwr, pwr.K1, pr3); code != http.StatusUnprocessableEntity || !strings.Contains(s.Reason, "cannot pay") {
			t.Errorf("an empty wallet: %d %+v", code, s)
		}
		if got := k.get(poor, pl.ID); got.Used != 0 {
			t.Errorf("a refused claim took a use: %+v", got)
		}

		// An expired link refuses, at its URL and at its callback.
		el := k.link(alice, map[string]any{"min_msat": 1000, "max_msat": 10_000, "expires_at": time.Now().Add(time.Hour)})
		ewr := k.request(el)
		k.later(2 * time.Hour)
		if r := k.do("", "GET", strings.TrimSuffix(ewr.Callback, "/callback"), nil); r.Code < 400 || !strings.Contains(string(r.Body), "expired") {
			t.Errorf("an expired link's URL: %d %s", r.Code, r.Body)
		}
		_, pr4 := k.invoice(bob, 3000)
		if code, s := k.claim(ewr, ewr.K1, pr4); code < 400 || !strings.Contains(s.Reason, "expired") {
			t.Errorf("an expired link: %d %+v", code, s)
		}
		k.later(-2 * time.Hour)
		if got := k.e.Balance(aliceW.ID).AvailableMsat; got != 1_000_000-5000 {
			t.Errorf("alice has %d msat", got)
		}
	})
}

// A link revoked while a claim waits to be paid: the claim fails (the
// link's credential is gone), nothing is paid, and the link's URL is
// gone.
func TestRevokeMidClaim(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, func(c *withdraw.Config) { c.PayLater, c.Retry = true, time.Hour })
		alice, aliceW := k.user("alice", 1_000_000)
		bob, bobW := k.user("bob", 0)
		l := k.link(alice, map[string]any{"min_msat": 1000, "max_msat": 10_000})
		wr := k.request(l)
		_, pr := k.invoice(bob, 4000)
		if code, s := k.claim(wr, wr.K1, pr); code != http.StatusOK || s.Status != "OK" {
			t.Fatalf("claiming: %d %+v", code, s)
		}
		if got := k.get(alice, l.ID); len(got.Claims) != 1 || got.Claims[0].State != "pending" {
			t.Fatalf("the claim before the revoke: %+v", got)
		}
		if r := k.do(alice, "DELETE", "/v1/me/withdraw-links/"+l.ID, nil); r.Code != http.StatusNoContent {
			t.Fatalf("revoking: %d %s", r.Code, r.Body)
		}
		k.later(2 * time.Hour) // the lead now pays what was left: it is refused
		r := k.do(k.admin(), "GET", "/v1/withdraw-links?wallet_id="+aliceW.ID, nil)
		if r.Code != http.StatusOK || strings.Contains(string(r.Body), l.ID) {
			t.Errorf("a revoked link is listed: %d %s", r.Code, r.Body)
		}
		k.e.Eventually("the pending claim failed", func() bool { return k.claimState(l.ID) == "failed" })
		if got := k.e.Balance(bobW.ID).AvailableMsat; got != 0 {
			t.Errorf("a revoked link paid %d msat", got)
		}
		if got := k.e.Balance(aliceW.ID).AvailableMsat; got != 1_000_000 {
			t.Errorf("alice has %d msat", got)
		}
		if r := k.do("", "GET", strings.TrimSuffix(wr.Callback, "/callback"), nil); r.Code != http.StatusNotFound {
			t.Errorf("a revoked link's URL: %d %s", r.Code, r.Body)
		}
		k.later(-2 * time.Hour)
	})
}

// A wallet claims a link it was handed (as lnurl1… and as lnurlw://):
// its invoice is made, handed to the link's callback, and paid by the
// link's wallet. What is no withdraw link is refused.
func TestPullingALink(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		bob, bobW := k.user("bob", 1_000_000)
		alice, aliceW := k.user("alice", 0)
		l := k.link(bob, map[string]any{"title": "Gift", "min_msat": 1000, "max_msat": 30_000, "uses": 2})
		for i, input := range []string{l.LNURL, l.LNURLW} {
			r := k.do(alice, "POST", "/v1/me/lnurl-withdraw", map[string]any{"input": input, "amount_msat": 10_000 + i*1000})
			if r.Code != http.StatusAccepted {
				t.Fatalf("pulling %s: %d %s", input, r.Code, r.Body)
			}
			var inv struct {
				ID          string `json:"id"`
				Status      string `json:"status"`
				Description string `json:"description"`
				WalletID    string `json:"wallet_id"`
			}
			r.json(t, &inv)
			if inv.WalletID != aliceW.ID || inv.Description != "Gift" {
				t.Errorf("the pulled invoice %+v", inv)
			}
			k.e.Eventually("the pulled invoice paid", func() bool { return k.settled(alice, inv.ID) })
		}
		if got := k.e.Balance(aliceW.ID).AvailableMsat; got != 21_000 {
			t.Errorf("alice has %d msat, want 21000", got)
		}
		if got := k.e.Balance(bobW.ID).AvailableMsat; got != 1_000_000-21_000 {
			t.Errorf("bob has %d msat", got)
		}
		// Used up: the link refuses, and says so.
		r := k.do(alice, "POST", "/v1/me/lnurl-withdraw", map[string]any{"input": l.LNURL})
		if r.Code != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "used") {
			t.Errorf("pulling a used link: %d %s", r.Code, r.Body)
		}
		for _, bad := range []string{"lnurl1qqqqqq", "https://" + k.srv.Listener.Addr().String() + "/v1/health", "not a link"} {
			if r := k.do(alice, "POST", "/v1/me/lnurl-withdraw", map[string]any{"input": bad}); r.Code != http.StatusUnprocessableEntity {
				t.Errorf("pulling %q: %d %s", bad, r.Code, r.Body)
			}
		}
		if r := k.do(alice, "POST", "/v1/me/lnurl-withdraw", map[string]any{"input": l.LNURLW, "amount_msat": 999_999}); r.Code != http.StatusUnprocessableEntity {
			t.Errorf("pulling more than the link gives: %d %s", r.Code, r.Body)
		}
	})
}

// count makes a sheet of single-use vouchers; each is a link of its own.
func TestVouchers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, db *store.DB) {
		k := newKit(t, db, nil)
		alice, _ := k.user("alice", 1_000_000)
		bob, bobW := k.user("bob", 0)
		r := k.do(alice, "POST", "/v1/me/withdraw-links", map[string]any{"title": "Raffle", "min_msat": 5000, "max_msat": 5000, "count": 4})
		if r.Code != http.StatusCreated {
			t.Fatalf("vouchers: %d %s", r.Code, r.Body)
		}
		var vs []withdraw.Link
		r.json(t, &vs)
		seen := map[string]bool{}
		for _, v := range vs {
			if v.Uses != 1 || seen[v.LNURL] {
				t.Fatalf("vouchers %+v", vs)
			}
			seen[v.LNURL] = true
		}
		if len(vs) != 4 {
			t.Fatalf("%d vouchers, want 4", len(vs))
		}
		for _, v := range vs[:2] {
			wr := k.request(v)
			_, pr := k.invoice(bob, 5000)
			if code, s := k.claim(wr, wr.K1, pr); code != http.StatusOK {
				t.Fatalf("claiming a voucher: %d %+v", code, s)
			}
		}
		k.e.Eventually("two vouchers paid", func() bool { return k.e.Balance(bobW.ID).AvailableMsat == 10_000 })
		for body, want := range map[string]int{
			`{"min_msat":5000,"max_msat":5000,"count":3,"uses":2}`:                  http.StatusBadRequest,
			`{"min_msat":5000,"max_msat":5000,"count":101}`:                         http.StatusBadRequest,
			`{"min_msat":5000,"max_msat":4000}`:                                     http.StatusBadRequest,
			`{"max_msat":4000}`:                                                     http.StatusBadRequest,
			`{"min_msat":5000,"max_msat":5000,"expires_at":"2020-01-01T00:00:00Z"}`: http.StatusBadRequest,
		} {
			var m map[string]any
			_ = json.Unmarshal([]byte(body), &m)
			if r := k.do(alice, "POST", "/v1/me/withdraw-links", m); r.Code != want {
				t.Errorf("%s: %d %s", body, r.Code, r.Body)
			}
		}
		// An API key without write:api_key cannot make a link: a link is a
		// credential.
		key, err := k.tokens.Issue("alice", auth.NewScopes(auth.WriteTransaction, auth.ReadTransaction))
		if err != nil {
			t.Fatal(err)
		}
		if r := k.do(key, "POST", "/v1/me/withdraw-links", map[string]any{"min_msat": 5000, "max_msat": 5000}); r.Code != http.StatusForbidden {
			t.Errorf("without write:api_key: %d %s", r.Code, r.Body)
		}
	})
}

// A real LNURL client library reads the link: js-lnurl (npm, pinned)
// fetches the withdrawRequest from the bech32 and from the lnurlw:// form
// of a link of an instance behind TLS, in node.
func TestJSLNURLReadsTheLink(t *testing.T) {
	t.Parallel()
	_, self, _, _ := runtime.Caller(0)
	dir := npmtest.Install(t, filepath.Join(filepath.Dir(self), "testdata", "jslnurl"), "withdraw-jslnurl",
		filepath.Join("node_modules", "js-lnurl", "package.json"))
	k := newKitWith(t, storetest.SQLite(t), true, nil)
	alice, _ := k.user("alice", 1_000_000)
	l := k.link(alice, map[string]any{"title": "Tip jar refund", "min_msat": 1000, "max_msat": 42_000})
	if !strings.HasPrefix(l.LNURLW, "lnurlw://127.0.0.1:") {
		t.Fatalf("lnurlw %s", l.LNURLW)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "read.cjs", l.LNURL, l.LNURLW)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_EXTRA_CA_CERTS="+ca)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("js-lnurl: %v\n%s", err, stderr)
	}
	var read map[string]struct {
		Tag                string `json:"tag"`
		Callback           string `json:"callback"`
		K1                 string `json:"k1"`
		DefaultDescription string `json:"defaultDescription"`
		MinWithdrawable    int64  `json:"minWithdrawable"`
		MaxWithdrawable    int64  `json:"maxWithdrawable"`
		Domain             string `json:"domain"`
		Status             string `json:"status"`
		Reason             string `json:"reason"`
	}
	if err := json.Unmarshal(out, &read); err != nil {
		t.Fatalf("js-lnurl printed %s: %v", out, err)
	}
	wr := k.request(l)
	for _, form := range []string{l.LNURL, l.LNURLW} {
		got := read[form]
		if got.Tag != "withdrawRequest" || got.K1 != wr.K1 || got.Callback != wr.Callback || got.MinWithdrawable != 1000 ||
			got.MaxWithdrawable != 42_000 || got.DefaultDescription != "Tip jar refund" || !strings.HasPrefix(got.Callback, "https://") {
			t.Errorf("js-lnurl read %s as %+v", form, got)
		}
	}
}

// The public routes are rate-limited per client address: past the burst,
// 429 in the LUD error form.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	k := newKit(t, storetest.SQLite(t), func(c *withdraw.Config) { c.RatePerMinute, c.RateBurst = 1, 3 })
	alice, _ := k.user("alice", 1_000_000)
	l := k.link(alice, map[string]any{"min_msat": 1000, "max_msat": 10_000})
	wr := k.request(l)
	codes := map[int]int{}
	for range 5 {
		codes[k.do("", "GET", strings.TrimSuffix(wr.Callback, "/callback"), nil).Code]++
	}
	r := k.do("", "GET", wr.Callback+"?k1=x&pr=y", nil)
	if codes[http.StatusTooManyRequests] == 0 || r.Code != http.StatusTooManyRequests || !strings.Contains(string(r.Body), `"status":"ERROR"`) {
		t.Errorf("past the burst: %v, then %d %s", codes, r.Code, r.Body)
	}
}
