package lnurl_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/contract"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// outside is an LNURL-pay server of the test, run by someone else: its
// invoices come from mint, and each username misbehaves in its own way.
type outside struct {
	*httptest.Server
	mint func(ctx context.Context, msat int64, descriptionHash []byte) (bolt11, preimage string, err error)

	mu        sync.Mutex
	callbacks int
	comments  []string
	payerData []string // each callback's payerdata, as received
}

func newOutside(t *testing.T, mint func(ctx context.Context, msat int64, descriptionHash []byte) (string, string, error)) *outside {
	o := &outside{mint: mint}
	o.Server = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.Close)
	return o
}

// calls returns how many callbacks the server answered, and the comment
// of the first.
func (o *outside) calls() (int, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	first := ""
	if len(o.comments) > 0 {
		first = o.comments[0]
	}
	return o.callbacks, first
}

// host is the server's host:port, the domain of its addresses.
func (o *outside) host() string { return strings.TrimPrefix(o.URL, "http://") }

func (o *outside) metadata(user string) string {
	b, _ := json.Marshal([][2]string{{"text/plain", "Pay " + user}, {"text/identifier", user + "@" + o.host()}})
	return string(b)
}

func (o *outside) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	if user, ok := strings.CutPrefix(r.URL.Path, "/.well-known/lnurlp/"); ok {
		switch user {
		case "gone":
			w.WriteHeader(404)
			enc.Encode(map[string]any{"status": "ERROR", "reason": "no such user"}) //nolint:errcheck
			return
		case "withdraw":
			enc.Encode(map[string]any{"tag": "withdrawRequest"}) //nolint:errcheck
			return
		case "moved":
			http.Redirect(w, r, "/.well-known/lnurlp/shop", http.StatusFound)
			return
		case "huge":
			w.Write(bytes.Repeat([]byte(" "), 2<<20)) //nolint:errcheck
			return
		}
		allowed := 50
		if user == "nocomment" {
			allowed = 0
		}
		params := map[string]any{"tag": "payRequest", "callback": o.URL + "/cb/" + user, "minSendable": 1000,
			"maxSendable": 1_000_000, "metadata": o.metadata(user), "commentAllowed": allowed}
		switch user { // LUD-18
		case "asks":
			params["payerData"] = map[string]any{"identifier": map[string]any{"mandatory": false}, "pubkey": map[string]any{"mandatory": false}}
		case "strict":
			params["payerData"] = map[string]any{"name": map[string]any{"mandatory": true}}
		case "needsaddress":
			params["payerData"] = map[string]any{"identifier": map[string]any{"mandatory": true}}
		}
		enc.Encode(params) //nolint:errcheck
		return
	}
	user := strings.TrimPrefix(r.URL.Path, "/cb/")
	amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
	o.mu.Lock()
	o.callbacks++
	o.comments = append(o.comments, r.URL.Query().Get("comment"))
	payerData := r.URL.Query().Get("payerdata")
	o.payerData = append(o.payerData, payerData)
	o.mu.Unlock()
	sum := sha256.Sum256([]byte(o.metadata(user) + payerData)) // LUD-18: the payer's data after the metadata
	switch user {
	case "cheat":
		amount += 1000
	case "wronghash":
		sum = sha256.Sum256([]byte(o.metadata("someone else")))
	}
	pr, preimage, err := o.mint(r.Context(), amount, sum[:])
	if err != nil {
		w.WriteHeader(500)
		return
	}
	ans := map[string]any{"pr": pr, "routes": []any{}}
	switch user {
	case "shop", "cheat", "wronghash":
		ans["successAction"] = map[string]any{"tag": "message", "message": "Thank you!"}
	case "link":
		ans["successAction"] = map[string]any{"tag": "url", "description": "Your receipt", "url": o.URL + "/receipt/1"}
	case "faraway":
		ans["successAction"] = map[string]any{"tag": "url", "description": "Elsewhere", "url": "https://example.com/r"}
	case "secret":
		ans["successAction"] = aesAction(preimage, "code 1234")
	}
	enc.Encode(ans) //nolint:errcheck
}

// aesAction is a LUD-10 aes success action of plaintext, keyed by the
// preimage (hex).
func aesAction(preimage, plaintext string) map[string]any {
	key, _ := hex.DecodeString(preimage)
	block, _ := aes.NewCipher(key)
	iv := bytes.Repeat([]byte{7}, aes.BlockSize)
	pad := aes.BlockSize - len(plaintext)%aes.BlockSize
	pt := append([]byte(plaintext), bytes.Repeat([]byte{byte(pad)}, pad)...)
	ct := make([]byte, len(pt))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, pt)
	return map[string]any{"tag": "aes", "description": "Your code", "iv": base64.StdEncoding.EncodeToString(iv),
		"ciphertext": base64.StdEncoding.EncodeToString(ct)}
}

// successAction decodes a payment's success action.
func successAction(t *testing.T, p ledger.Payment) lnurl.SuccessAction {
	t.Helper()
	var raw json.RawMessage
	switch {
	case p.Lightning != nil:
		raw = p.Lightning.SuccessAction
	case p.Internal != nil:
		raw = p.Internal.SuccessAction
	}
	var sa lnurl.SuccessAction
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &sa); err != nil {
			t.Fatal(err)
		}
	}
	return sa
}

// TestPayOutsideServer pays Lightning Addresses and LNURLs of an outside
// LNURL-pay server through POST /v1/me/payments, and refuses each of its
// misbehaviours before any money moves. The server's invoices are the
// embedded node's, so the payments settle inside the instance; the
// regtest test (regtest_test.go) pays a real outside node.
func TestPayOutsideServer(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "hearth.test", PublicURL: public}, nil)
		shopW := e.Wallet("shop", 0)
		bobTok, bobW := k.user("bob", 200_000)
		o := newOutside(t, func(ctx context.Context, msat int64, hash []byte) (string, string, error) {
			inv, err := e.Ledger.CreateInvoice(ctx, shopW.ID, ledger.NewInvoice{AmountMsat: msat, DescriptionHash: hash})
			if err != nil {
				return "", "", err
			}
			return inv.Bolt11, *inv.PaymentPreimage, nil
		})
		addr := func(user string) string { return user + "@" + o.host() }

		r, p := k.pay(bobTok, map[string]any{"input": addr("shop"), "amount_msat": 5000, "comment": "for the cake"})
		if r.Code != 201 || p.Status != ledger.StatusSettled {
			t.Fatalf("paying %s: %d %s", addr("shop"), r.Code, r.Body)
		}
		if sa := successAction(t, p); sa.Tag != "message" || sa.Message != "Thank you!" {
			t.Errorf("success action %+v", sa)
		}
		if p.Internal == nil || p.Internal.LnAddress == nil || *p.Internal.LnAddress != addr("shop") {
			t.Errorf("payment record %s", r.Body)
		}
		if _, first := o.calls(); first != "for the cake" {
			t.Errorf("the server got comment %q", first)
		}
		// The record keeps it.
		got, err := e.Ledger.Payment(t.Context(), bobW.ID, p.ID)
		if err != nil || successAction(t, *got).Message != "Thank you!" {
			t.Errorf("stored payment %+v %v", got, err)
		}
		// A url action on the callback's host; an aes action decrypted
		// with the preimage.
		r, p = k.pay(bobTok, map[string]any{"input": addr("link"), "amount_msat": 2000})
		if sa := successAction(t, p); r.Code != 201 || sa.Tag != "url" || sa.URL != o.URL+"/receipt/1" {
			t.Errorf("url action: %d %s", r.Code, r.Body)
		}
		r, p = k.pay(bobTok, map[string]any{"input": addr("secret"), "amount_msat": 2000})
		if sa := successAction(t, p); r.Code != 201 || sa.Tag != "aes" || sa.Plaintext != "code 1234" || sa.Ciphertext == "" {
			t.Errorf("aes action: %d %s", r.Code, r.Body)
		}
		// The same over lnurl1…, lnurlp:// and the URL itself; the address
		// is the metadata's text/identifier.
		bech, err := lnurl.EncodeLNURL(o.URL + "/.well-known/lnurlp/shop")
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{bech, "lightning:" + bech, "lnurlp://" + o.host() + "/.well-known/lnurlp/shop", o.URL + "/.well-known/lnurlp/shop"} {
			r, p := k.pay(bobTok, map[string]any{"input": in, "amount_msat": 1500})
			if r.Code != 201 || p.Internal == nil || p.Internal.LnAddress == nil || *p.Internal.LnAddress != addr("shop") {
				t.Errorf("paying %s: %d %s", in, r.Code, r.Body)
			}
		}
		// A redirect is followed (and re-checked by the outbound guard).
		if r, p := k.pay(bobTok, map[string]any{"input": addr("moved"), "amount_msat": 1000}); r.Code != 201 || p.Status != ledger.StatusSettled {
			t.Errorf("paying through a redirect: %d %s", r.Code, r.Body)
		}
		// The fee estimate pays nothing.
		before := e.Balance(bobW.ID)
		r = k.do(bobTok, "POST", "/v1/me/payments/fee-estimate", map[string]any{"input": addr("shop"), "amount_msat": 4000})
		var est ledger.FeeEstimate
		r.json(t, &est)
		if r.Code != 200 || est.AmountMsat != 4000 {
			t.Errorf("fee estimate: %d %s", r.Code, r.Body)
		}
		// Refusals: nothing paid, nothing reserved.
		calls, _ := o.calls()
		for _, c := range []struct {
			body     map[string]any
			want     string
			callback bool // the server's callback was called
		}{
			{map[string]any{"input": addr("shop")}, "amount_msat is required", false},
			{map[string]any{"input": addr("shop"), "amount_msat": 999}, "outside what the recipient accepts", false},
			{map[string]any{"input": addr("shop"), "amount_msat": 1_000_001}, "outside what the recipient accepts", false},
			{map[string]any{"input": addr("shop"), "amount_msat": 1000, "comment": strings.Repeat("x", 51)}, "comment_too_long", false},
			{map[string]any{"input": addr("nocomment"), "amount_msat": 1000, "comment": "hi"}, "comment_not_allowed", false},
			{map[string]any{"input": addr("gone"), "amount_msat": 1000}, "no such user", false},
			{map[string]any{"input": addr("withdraw"), "amount_msat": 1000}, "claim it with POST /v1/me/lnurl-withdraw", false},
			{map[string]any{"input": "lightning:LNURLW://example.com/lnurlw/x", "amount_msat": 1000}, "claim it with POST /v1/me/lnurl-withdraw", false},
			{map[string]any{"input": addr("cheat"), "amount_msat": 5000}, "not the 5000 msat asked", true},
			{map[string]any{"input": addr("wronghash"), "amount_msat": 5000}, "description hash", true},
			{map[string]any{"input": addr("faraway"), "amount_msat": 5000}, "callback's host", true},
			{map[string]any{"input": "shop@127.0.0.1:1", "amount_msat": 5000}, "could not be reached", false},
			{map[string]any{"input": addr("huge"), "amount_msat": 5000}, "response larger than", false},
		} {
			r, _ := k.pay(bobTok, c.body)
			if r.Code != 422 || !strings.Contains(string(r.Body), c.want) {
				t.Errorf("paying %v: %d %s, want 422 %q", c.body, r.Code, r.Body, c.want)
			}
			if c.callback {
				calls++
			}
			if n, _ := o.calls(); n != calls {
				t.Errorf("paying %v: the callback was called %d times, want %d", c.body, n, calls)
				calls = n
			}
		}
		if got := e.Balance(bobW.ID); got != before {
			t.Errorf("the estimate or a refusal moved money: %+v, was %+v", got, before)
		}
		ps, _ := e.Ledger.Payments(t.Context(), ledger.Filter{WalletID: bobW.ID})
		if len(ps) != 8 {
			t.Errorf("bob has %d payments, want the 8 that were paid", len(ps))
		}
		e.CheckLedger()
	})
}

// TestHostCall is the ln_address host call of WebAssembly plugins, now
// the plugin's client behind contract.AddressResolver: the same checks, the
// host's call errors, and the outbound guard's refusal of loopback hosts
// unless the test switch allows them.
func TestHostCall(t *testing.T) {
	t.Parallel()
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	shopW := e.Wallet("shop", 0)
	o := newOutside(t, func(ctx context.Context, msat int64, hash []byte) (string, string, error) {
		inv, err := e.Ledger.CreateInvoice(ctx, shopW.ID, ledger.NewInvoice{AmountMsat: msat, DescriptionHash: hash})
		if err != nil {
			return "", "", err
		}
		return inv.Bolt11, *inv.PaymentPreimage, nil
	})
	c := lnurl.NewClient(host.NewOutbound(host.OutboundConfig{AllowPrivate: true, Timeout: 5 * time.Second}), e.Node, true)
	var _ contract.AddressResolver = c
	ctx := context.Background()
	for _, tc := range []struct {
		user   string
		amount int64
		code   string
	}{
		{"shop", 5000, ""}, {"shop", 500, "lnurl"}, {"gone", 5000, "lnurl"}, {"cheat", 5000, "lnurl"},
		{"wronghash", 5000, "lnurl"}, {"shop", 0, "invalid"},
	} {
		bolt11, err := c.Resolve(ctx, tc.user+"@"+o.host(), tc.amount, strings.Repeat("long comment ", 10))
		var ce *host.CallError
		switch {
		case tc.code == "" && (err != nil || bolt11 == ""):
			t.Errorf("%s: %v", tc.user, err)
		case tc.code != "" && (!asCallError(err, &ce) || ce.Code != tc.code):
			t.Errorf("%s %d: %v, want a call error %q", tc.user, tc.amount, err, tc.code)
		}
	}
	if _, err := c.Resolve(ctx, "not an address", 1000, ""); err == nil {
		t.Error("resolved a non-address")
	}
	strict := lnurl.NewClient(host.NewOutbound(host.OutboundConfig{}), e.Node, true)
	if _, err := strict.Resolve(ctx, "shop@"+o.host(), 5000, ""); err == nil {
		t.Error("reached a loopback LNURL server without the test switch")
	}
}

func asCallError(err error, ce **host.CallError) bool {
	e, ok := err.(*host.CallError)
	*ce = e
	return ok
}

// lastPayerData is the payerdata of the last callback.
func (o *outside) lastPayerData() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.payerData) == 0 {
		return ""
	}
	return o.payerData[len(o.payerData)-1]
}

// LUD-18 on the paying side: to a payee that asks for the payer's
// identifier, a wallet with a Lightning Address sends it (and checks the
// invoice's hash over the metadata and it); one without sends nothing;
// a payee that makes mandatory what Hearth cannot send is refused, and so
// is one that needs an address from a wallet without one.
func TestPayerDataSent(t *testing.T) {
	t.Parallel()
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, lnurl.Config{Domain: "hearth.test", PublicURL: public}, nil)
		shopW := e.Wallet("shop", 0)
		bobTok, _ := k.user("bob", 200_000)
		carolTok, _ := k.user("carol", 200_000)
		k.register(bobTok, "bob")
		o := newOutside(t, func(ctx context.Context, msat int64, hash []byte) (string, string, error) {
			inv, err := e.Ledger.CreateInvoice(ctx, shopW.ID, ledger.NewInvoice{AmountMsat: msat, DescriptionHash: hash})
			if err != nil {
				return "", "", err
			}
			return inv.Bolt11, *inv.PaymentPreimage, nil
		})
		addr := func(user string) string { return user + "@" + o.host() }
		if r, p := k.pay(bobTok, map[string]any{"input": addr("asks"), "amount_msat": 3000}); r.Code != 201 || p.Status != ledger.StatusSettled {
			t.Fatalf("bob paying a payee that asks: %d %s", r.Code, r.Body)
		}
		if got := o.lastPayerData(); got != `{"identifier":"bob@hearth.test"}` {
			t.Errorf("bob sent payerdata %q", got)
		}
		if r, _ := k.pay(carolTok, map[string]any{"input": addr("asks"), "amount_msat": 3000}); r.Code != 201 {
			t.Fatalf("carol paying a payee that asks: %d %s", r.Code, r.Body)
		}
		if got := o.lastPayerData(); got != "" {
			t.Errorf("carol, without an address, sent payerdata %q", got)
		}
		if r, _ := k.pay(bobTok, map[string]any{"input": addr("strict"), "amount_msat": 3000}); r.Code != 422 || !strings.Contains(string(r.Body), "name") {
			t.Errorf("a payee that makes the name mandatory: %d %s", r.Code, r.Body)
		}
		if r, _ := k.pay(carolTok, map[string]any{"input": addr("needsaddress"), "amount_msat": 3000}); r.Code != 422 || !strings.Contains(string(r.Body), "register one") {
			t.Errorf("a payee that needs an address, from a wallet without one: %d %s", r.Code, r.Body)
		}
	})
}
