package lnurl_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// public is what the instance behind a TLS proxy hands out: every URL
// under it.
const public = "https://hearth.test"

// proxied turns a URL the instance handed out into the test server's,
// as the reverse proxy in front of it would.
func (k *kit) proxied(u string) string {
	k.t.Helper()
	rest, ok := strings.CutPrefix(u, public+"/")
	if !ok {
		k.t.Fatalf("handed out %q, not under %s", u, public)
	}
	return k.srv.URL + "/" + rest
}

// lnurlError checks an answer in the LUD error form.
func lnurlError(t *testing.T, r response, code int, what string) {
	t.Helper()
	var e lnurl.Error
	if r.Code != code || json.Unmarshal(r.Body, &e) != nil || e.Status != "ERROR" || e.Reason == "" {
		t.Errorf("%s: %d %s, want %d {status: ERROR, reason}", what, r.Code, r.Body, code)
	}
	if r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: no Access-Control-Allow-Origin: *", what)
	}
}

// TestPayRequestAndCallback calls the LNURL-pay routes over HTTP as an
// outside wallet does (LUD-06, -12, -16, -21), on an instance behind a TLS
// proxy at hearth.test.
func TestPayRequestAndCallback(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "hearth.test", PublicURL: public + "/", MinSendableMsat: 1000, MaxSendableMsat: 1_000_000, CommentAllowed: 20}, nil)
		aliceTok, aliceW := k.user("alice", 0)
		_, bobW := k.user("bob", 50_000)
		a := k.register(aliceTok, "alice")

		r := k.do("", "GET", "/.well-known/lnurlp/Alice", nil)
		if r.Code != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("payRequest: %d %v %s", r.Code, r.Header, r.Body)
		}
		var raw map[string]any
		r.json(t, &raw)
		for _, f := range []string{"tag", "callback", "minSendable", "maxSendable", "metadata", "commentAllowed"} {
			if _, ok := raw[f]; !ok {
				t.Errorf("payRequest lacks %s: %s", f, r.Body)
			}
		}
		var pr lnurl.PayParams
		r.json(t, &pr)
		if pr.Tag != "payRequest" || pr.Callback != public+"/lnurlp/alice/callback" || pr.MinSendable != 1000 ||
			pr.MaxSendable != 1_000_000 || pr.CommentAllowed != 20 {
			t.Fatalf("payRequest %+v", pr)
		}
		var meta [][]string
		if err := json.Unmarshal([]byte(pr.Metadata), &meta); err != nil {
			t.Fatalf("metadata %q: %v", pr.Metadata, err)
		}
		entries := map[string]string{}
		for _, m := range meta {
			entries[m[0]] = m[1]
		}
		if entries["text/identifier"] != "alice@hearth.test" || entries["text/plain"] == "" {
			t.Errorf("metadata %q", pr.Metadata)
		}
		lnurlError(t, k.do("", "GET", "/.well-known/lnurlp/nobody", nil), 404, "unknown username")
		lnurlError(t, k.do("", "GET", "/.well-known/lnurlp/no%20body", nil), 404, "bad username")

		// The callback.
		cb := k.proxied(pr.Callback)
		r = k.do("", "GET", cb+"?amount=21000&comment="+url.QueryEscape("thanks ⚡"), nil)
		if r.Code != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("callback: %d %s", r.Code, r.Body)
		}
		var ans struct {
			PR     string   `json:"pr"`
			Routes []string `json:"routes"`
			Verify string   `json:"verify"`
		}
		r.json(t, &ans)
		if ans.Routes == nil || len(ans.Routes) != 0 || !strings.Contains(string(r.Body), `"routes":[]`) {
			t.Errorf("routes: %s", r.Body)
		}
		dec, err := e.Node.Decode(ans.PR)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(pr.Metadata))
		if dec.AmountMsat != 21000 || dec.DescriptionHash != hex.EncodeToString(sum[:]) {
			t.Fatalf("invoice of %d msat, hash %s; want 21000 and sha256(metadata)", dec.AmountMsat, dec.DescriptionHash)
		}
		invs, err := e.Ledger.Invoices(t.Context(), ledger.Filter{WalletID: aliceW.ID})
		if err != nil || len(invs) != 1 {
			t.Fatalf("alice's invoices: %v %v", invs, err)
		}
		inv := invs[0]
		if addressOf(t, &inv) != a.ID || inv.Description == nil || *inv.Description != "thanks ⚡" {
			t.Errorf("invoice record %+v", inv)
		}

		// LUD-21: not settled, then settled with the preimage.
		var v lnurl.Verification
		r = k.do("", "GET", k.proxied(ans.Verify), nil)
		r.json(t, &v)
		if r.Code != 200 || v.Status != "OK" || v.Settled || v.Preimage != nil || v.PR != ans.PR {
			t.Fatalf("verify before paying: %d %s", r.Code, r.Body)
		}
		e.Pay(bobW.ID, ans.PR)
		v = lnurl.Verification{}
		k.do("", "GET", k.proxied(ans.Verify), nil).json(t, &v)
		if !v.Settled || v.Preimage == nil {
			t.Fatalf("verify after paying: %+v", v)
		}
		pre, _ := hex.DecodeString(*v.Preimage)
		if h := sha256.Sum256(pre); hex.EncodeToString(h[:]) != dec.PaymentHash {
			t.Errorf("preimage %s does not hash to %s", *v.Preimage, dec.PaymentHash)
		}
		settled, err := e.Ledger.Invoice(t.Context(), aliceW.ID, inv.ID)
		if err != nil || settled.Status != ledger.StatusSettled || addressOf(t, settled) != a.ID {
			t.Errorf("settled invoice %+v %v", settled, err)
		}
		// The invoice.settled event carries the address.
		e.Eventually("the invoice.settled event", func() bool {
			evs, _, err := e.Outbox.Read(t.Context(), 0, outbox.Filter{WalletID: aliceW.ID, Types: []string{event.InvoiceSettled}}, 10)
			if err != nil || len(evs) != 1 {
				return false
			}
			inv, ok := evs[0].Data.(*ledger.Invoice)
			return ok && addressOf(t, inv) == a.ID
		})
		lnurlError(t, k.do("", "GET", k.srv.URL+"/lnurlp/alice/verify/0190b6f2-0000-7000-8000-000000000000", nil), 404, "verify of an unknown invoice")
		lnurlError(t, k.do("", "GET", k.srv.URL+"/lnurlp/bob/verify/"+inv.ID, nil), 404, "verify under another username")

		// Refusals, in the LUD form.
		for _, c := range []struct {
			query string
			code  int
		}{
			{"", 400}, {"?amount=abc", 400}, {"?amount=999", 422}, {"?amount=1000001", 422}, {"?amount=-5", 422},
			{"?amount=5000&comment=" + strings.Repeat("x", 21), 422},
		} {
			lnurlError(t, k.do("", "GET", cb+c.query, nil), c.code, "callback"+c.query)
		}
		lnurlError(t, k.do("", "GET", k.srv.URL+"/lnurlp/nobody/callback?amount=5000", nil), 404, "callback of an unknown username")
		// Exactly commentAllowed characters pass.
		if r := k.do("", "GET", cb+"?amount=5000&comment="+url.QueryEscape(strings.Repeat("é", 20)), nil); r.Code != 200 {
			t.Errorf("a comment of commentAllowed characters: %d %s", r.Code, r.Body)
		}
		// Inactive: 404 on every route.
		if r := k.do(aliceTok, "PUT", "/v1/me/lightning-address", map[string]any{"active": false}); r.Code != 200 {
			t.Fatal(r.Code)
		}
		lnurlError(t, k.do("", "GET", cb+"?amount=5000", nil), 404, "callback of an inactive address")
		e.CheckLedger()
	})
}

// TestRateLimit limits the public routes per client address.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := plugintest.SQLite(t, plugintest.Options{})
	k := newKit(t, e, lnurl.Config{RatePerMinute: 1, RateBurst: 2}, nil)
	tok, _ := k.user("alice", 0)
	k.register(tok, "alice")
	for i := range 2 {
		if r := k.do("", "GET", "/.well-known/lnurlp/alice", nil); r.Code != 200 {
			t.Fatalf("request %d: %d %s", i, r.Code, r.Body)
		}
	}
	r := k.do("", "GET", "/lnurlp/alice/callback?amount=5000", nil)
	lnurlError(t, r, 429, "over the limit")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The authenticated routes are not limited with them.
	if r := k.do(tok, "GET", "/v1/me/lightning-address", nil); r.Code != 200 {
		t.Errorf("registration route limited: %d", r.Code)
	}
}

// addressOf is the Lightning Address an invoice's record names
// (ln_address_id, as clients read it), after checking that its tag is
// this plugin's.
func addressOf(t *testing.T, inv *ledger.Invoice) string {
	t.Helper()
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		LnAddressID string      `json:"ln_address_id"`
		Tag         *ledger.Tag `json:"tag"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.LnAddressID != "" && (rec.Tag == nil || rec.Tag.Plugin != lnurl.Name || rec.Tag.Value != rec.LnAddressID) {
		t.Errorf("invoice record %s: ln_address_id without lnurl's tag", b)
	}
	return rec.LnAddressID
}

// LUD-18 on the receiving side: the payRequest offers payerData (name,
// identifier, email, none mandatory); a callback's payerdata is committed
// to after the metadata and kept on the invoice record; a payerdata that
// is no JSON object of what was offered is refused with nothing made.
func TestPayerData(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "hearth.test", PublicURL: public, MinSendableMsat: 1000, MaxSendableMsat: 1_000_000}, nil)
		aliceTok, aliceW := k.user("alice", 0)
		k.register(aliceTok, "alice")
		var pr lnurl.PayParams
		k.do("", "GET", "/.well-known/lnurlp/alice", nil).json(t, &pr)
		for _, f := range []string{"name", "identifier", "email"} {
			if got, ok := pr.PayerData[f]; !ok || got.Mandatory {
				t.Errorf("payerData %s: %+v", f, pr.PayerData)
			}
		}
		payer := `{"name":"Bob","identifier":"bob@elsewhere.test"}`
		r := k.do("", "GET", k.proxied(pr.Callback)+"?amount=5000&payerdata="+url.QueryEscape(payer), nil)
		if r.Code != 200 {
			t.Fatalf("callback with payerdata: %d %s", r.Code, r.Body)
		}
		var ans struct{ PR string }
		r.json(t, &ans)
		dec, err := e.Node.Decode(ans.PR)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(pr.Metadata + payer))
		if dec.DescriptionHash != hex.EncodeToString(sum[:]) {
			t.Errorf("the invoice commits to %s, want sha256(metadata + payerdata)", dec.DescriptionHash)
		}
		invs, err := e.Ledger.Invoices(t.Context(), ledger.Filter{WalletID: aliceW.ID})
		if err != nil || len(invs) != 1 {
			t.Fatalf("alice's invoices: %v %v", invs, err)
		}
		if b, _ := json.Marshal(invs[0]); !strings.Contains(string(b), `"payer_data":`+payer) {
			t.Errorf("the invoice record: %s", b)
		}
		for _, bad := range []string{`not json`, `["Bob"]`, `{"pubkey":"02ab"}`, `{"name":7}`, `{"name":"` + strings.Repeat("x", 300) + `"}`} {
			r := k.do("", "GET", k.proxied(pr.Callback)+"?amount=5000&payerdata="+url.QueryEscape(bad), nil)
			if r.Code != 400 || !strings.Contains(string(r.Body), "payerdata") {
				t.Errorf("payerdata %s: %d %s", bad, r.Code, r.Body)
			}
		}
		if invs, _ := e.Ledger.Invoices(t.Context(), ledger.Filter{WalletID: aliceW.ID}); len(invs) != 1 {
			t.Errorf("refused payerdata made invoices: %d", len(invs))
		}
	})
}
