package main

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// lnurlShop is an outside LNURL-pay server whose invoices are the outside
// lnd's (the regtest peer): "shop" behaves, "cheat" asks for more than
// asked, "forged" commits to other metadata, "secret" answers an aes
// success action.
type lnurlShop struct {
	*httptest.Server
	peer *regtest.Node

	mu       sync.Mutex
	comments []string
}

func (s *lnurlShop) host() string { return strings.TrimPrefix(s.URL, "http://") }

// comment is the i-th comment the server got.
func (s *lnurlShop) comment(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i >= len(s.comments) {
		return ""
	}
	return s.comments[i]
}

func (s *lnurlShop) metadata(user string) string {
	b, _ := json.Marshal([][2]string{{"text/plain", "Pay " + user}, {"text/identifier", user + "@" + s.host()}})
	return string(b)
}

func (s *lnurlShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if user, ok := strings.CutPrefix(r.URL.Path, "/.well-known/lnurlp/"); ok {
		json.NewEncoder(w).Encode(map[string]any{"tag": "payRequest", "callback": s.URL + "/cb/" + user, //nolint:errcheck
			"minSendable": 1000, "maxSendable": 10_000_000, "metadata": s.metadata(user), "commentAllowed": 100})
		return
	}
	user := strings.TrimPrefix(r.URL.Path, "/cb/")
	amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
	s.mu.Lock()
	s.comments = append(s.comments, r.URL.Query().Get("comment"))
	s.mu.Unlock()
	meta := s.metadata(user)
	switch user {
	case "cheat":
		amount += 1000
	case "forged":
		meta = s.metadata("someone")
	}
	sum := sha256.Sum256([]byte(meta))
	pr, preimage, err := s.peer.AddInvoiceHash(r.Context(), amount, sum[:])
	if err != nil {
		w.WriteHeader(500)
		return
	}
	ans := map[string]any{"pr": pr, "routes": []any{}, "successAction": map[string]any{"tag": "message", "message": "Thanks, " + user}}
	if user == "secret" {
		key, _ := hex.DecodeString(preimage)
		block, _ := aes.NewCipher(key)
		iv := bytes.Repeat([]byte{9}, aes.BlockSize)
		pt := append([]byte("the code is 42"), bytes.Repeat([]byte{2}, 2)...)
		ct := make([]byte, len(pt))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, pt)
		ans["successAction"] = map[string]any{"tag": "aes", "description": "Your code",
			"iv": base64.StdEncoding.EncodeToString(iv), "ciphertext": base64.StdEncoding.EncodeToString(ct)}
	}
	json.NewEncoder(w).Encode(ans) //nolint:errcheck
}

// TestLNURLWithLND runs `hearth serve` on the regtest lnd and pays, over
// HTTP, an outside LNURL-pay server backed by the outside lnd: by
// Lightning Address and by lnurl1…, with the comment and the success
// actions kept; wrong-amount and wrong-hash invoices refused with nothing
// paid. Then the outside node pays Hearth's own Lightning Address through
// its payRequest and callback. The ledger check is clean at the end. Not
// parallel: TestServeWithLND stops the shared node that this test pays
// through.
func TestLNURLWithLND(t *testing.T) {
	net := network.Get(t)
	lnurlOverHTTP(t, []string{
		"HEARTH_DATA_DIR=" + t.TempDir(),
		"HEARTH_NODE_BACKEND=lnd",
		"HEARTH_NODE_LND_ADDRESS=" + net.Hearth.RPCAddress,
		"HEARTH_NODE_LND_TLS_CERT=" + net.Hearth.TLSCertPath(),
		"HEARTH_NODE_LND_MACAROON=" + net.Hearth.MacaroonPath(),
	}, net.Peer)
}

// lnurlOverHTTP is TestLNURLWithLND's run on the node that nodeEnv
// configures, with peer an outside lnd that has a channel to it.
func lnurlOverHTTP(t *testing.T, nodeEnv []string, peer *regtest.Node) {
	environ := append([]string{
		"HEARTH_LISTEN=127.0.0.1:0",
		"HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true",
		"HEARTH_DOMAIN=hearth.test",
		"HEARTH_PUBLIC_URL=https://hearth.test",
	}, nodeEnv...)
	out := newSyncWriter()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	var runErr error
	go func() {
		defer close(stopped)
		runErr = run(ctx, []string{"serve"}, out, environ)
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	m, err := out.waitFor(listeningRE, stopped, 30*time.Second)
	if err != nil {
		t.Fatalf("%v; run error %v; output:\n%s", err, runErrIfStopped(stopped, &runErr), out)
	}
	c := &client{t: t, base: m[1], http: &http.Client{Timeout: 60 * time.Second}}
	defer c.http.CloseIdleConnections()
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)

	// Funds from the peer.
	var inv struct {
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/invoices", `{"amount_msat":300000}`, tok.Token), 201), &inv)
	if _, err := peer.Pay(ctx, inv.LnInvoice.Bolt11, 10_000); err != nil {
		t.Fatal(err)
	}
	balance := func() (available, reserved int64) {
		var b struct {
			AvailableMsat int64 `json:"available_msat"`
			ReservedMsat  int64 `json:"reserved_msat"`
		}
		c.decode(c.expect(c.call("GET", "/v1/me/balance", "", tok.Token), 200), &b)
		return b.AvailableMsat, b.ReservedMsat
	}
	poll.Until(t, 30*time.Second, func() error {
		if a, _ := balance(); a != 300_000 {
			return fmt.Errorf("available %d", a)
		}
		return nil
	})

	shop := &lnurlShop{peer: peer}
	shop.Server = httptest.NewServer(shop)
	defer shop.Close()
	type payment struct {
		ID             string
		Status, Ledger string
		AmountMsat     int64 `json:"amount_msat"`
		FeeMsat        int64 `json:"fee_msat"`
		Lightning      struct {
			PaymentPreimage string              `json:"payment_preimage"`
			LnAddress       string              `json:"ln_address"`
			SuccessAction   lnurl.SuccessAction `json:"success_action"`
		}
	}
	pay := func(input string, msat int64, comment string, code int) (payment, reply) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"input": input, "amount_msat": msat, "comment": comment})
		r := c.expect(c.call("POST", "/v1/me/payments", string(body), tok.Token), code)
		var p payment
		if code != 201 {
			return p, r
		}
		c.decode(r, &p)
		// The node may answer "in flight": the payment settles a moment
		// later, through the node's stream of payments, and its aes action
		// is decrypted then.
		id := p.ID
		poll.Until(t, 60*time.Second, func() error {
			if p.Status == "Settled" {
				return nil
			}
			p = payment{}
			c.decode(c.expect(c.call("GET", "/v1/me/payments/"+id, "", tok.Token), 200), &p)
			return fmt.Errorf("payment %s", p.Status)
		})
		return p, r
	}

	// By Lightning Address: paid over Lightning, the comment passed on,
	// the success action kept.
	p, _ := pay("shop@"+shop.host(), 21_000, "for the bread", 201)
	if p.Status != "Settled" || p.Ledger != "Lightning" || p.AmountMsat != 21_000 || p.Lightning.PaymentPreimage == "" ||
		p.Lightning.LnAddress != "shop@"+shop.host() || p.Lightning.SuccessAction.Message != "Thanks, shop" {
		t.Fatalf("payment %+v", p)
	}
	if c := shop.comment(0); c != "for the bread" {
		t.Errorf("the server got comment %q", c)
	}
	// By lnurl1…, with an aes action decrypted by the preimage.
	bech, err := lnurl.EncodeLNURL(shop.URL + "/.well-known/lnurlp/secret")
	if err != nil {
		t.Fatal(err)
	}
	p, _ = pay(bech, 5_000, "", 201)
	if p.Status != "Settled" || p.Ledger != "Lightning" || p.Lightning.SuccessAction.Tag != "aes" ||
		p.Lightning.SuccessAction.Plaintext != "the code is 42" || p.Lightning.LnAddress != "secret@"+shop.host() {
		t.Fatalf("payment by lnurl1…: %+v", p)
	}
	// The fee estimate of an outside address pays nothing.
	var est struct {
		Ledger         string
		MaximumFeeMsat int64 `json:"maximum_fee_msat"`
	}
	c.decode(c.expect(c.call("POST", "/v1/me/payments/fee-estimate", `{"input":"shop@`+shop.host()+`","amount_msat":4000}`, tok.Token), 200), &est)
	if est.Ledger != "Lightning" || est.MaximumFeeMsat <= 0 {
		t.Errorf("fee estimate %+v", est)
	}
	// Wrong amount, wrong hash: 422, nothing paid or reserved.
	availBefore, _ := balance()
	for _, user := range []string{"cheat", "forged"} {
		_, r := pay(user+"@"+shop.host(), 7_000, "", 422)
		if !strings.Contains(string(r.body), "lnurl_refused") {
			t.Errorf("%s: %s", user, r.body)
		}
	}
	if a, res := balance(); a != availBefore || res != 0 {
		t.Errorf("refusals moved money: available %d (was %d), reserved %d", a, availBefore, res)
	}

	// The outside node pays Hearth's own address through its LNURL routes.
	c.expect(c.call("POST", "/v1/me/lightning-address", `{"username":"baker"}`, tok.Token), 201)
	var pr lnurl.PayParams
	c.decode(c.expect(c.call("GET", "/.well-known/lnurlp/baker", "", ""), 200), &pr)
	if !strings.HasPrefix(pr.Callback, "https://hearth.test/") {
		t.Fatalf("callback %q is not under public_url", pr.Callback)
	}
	cb, _ := url.Parse(pr.Callback)
	var ans lnurl.Invoice
	c.decode(c.expect(c.call("GET", cb.Path+"?amount=12000&comment=hello", "", ""), 200), &ans)
	if !strings.HasPrefix(ans.Verify, "https://hearth.test/") {
		t.Fatalf("verify %q is not under public_url", ans.Verify)
	}
	availBefore, _ = balance()
	if _, err := peer.Pay(ctx, ans.PR, 10_000); err != nil {
		t.Fatal(err)
	}
	vu, _ := url.Parse(ans.Verify)
	poll.Until(t, 30*time.Second, func() error {
		var v lnurl.Verification
		c.decode(c.expect(c.call("GET", vu.Path, "", ""), 200), &v)
		if !v.Settled || v.Preimage == nil {
			return fmt.Errorf("verify: %+v", v)
		}
		return nil
	})
	if a, _ := balance(); a != availBefore+12_000 {
		t.Errorf("available %d after receiving 12000 on %d", a, availBefore)
	}

	cancel()
	<-stopped
	check := newSyncWriter()
	if err := run(context.Background(), []string{"ledger", "check"}, check, environ); err != nil || !strings.Contains(check.String(), "every wallet balances") {
		t.Fatalf("ledger check: %v\n%s", err, check)
	}
}
