package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Two replicas started at the same moment on an empty PostgreSQL database
// both serve; every route answers on either, the embedded node's faucet
// included (only one of them holds the node-stream lock); a password
// change on one makes the other refuse the old token within a second.
func TestTwoReplicasStartTogetherAndServeAlike(t *testing.T) {
	t.Parallel()
	environ := []string{"HEARTH_DATABASE_URL=" + storetest.EmptySchemaURL(t)}
	cs := make([]*client, 2)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := startProcess(t, append([]string{"HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR=" + t.TempDir()}, environ...), "serve")
			m, err := p.out.waitFor(listeningRE, p.done, 2*time.Minute)
			if err != nil {
				t.Errorf("replica %d: %v (exit %v); output:\n%s", i, err, p.err, p.out)
				return
			}
			cs[i] = &client{t: t, base: m[1], http: newHTTPClient(t)}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	a, b := cs[0], cs[1]
	token := signUp(t, a)

	alice := createWallet(t, b, token, "alice")
	bob := createWallet(t, a, token, "bob")
	// The faucet, on each replica: each pays an invoice that the other made.
	for i, c := range cs {
		inv := createInvoice(t, cs[1-i], token, alice, 50_000)
		c.expect(c.call("POST", "/v1/lightning-node/pay", fmt.Sprintf(`{"bolt11":%q}`, inv), token), 204)
	}
	// An internal payment through each replica, of an invoice the other made.
	for i, c := range cs {
		inv := createInvoice(t, cs[1-i], token, bob, 1_000)
		c.expect(c.call("POST", "/v1/payments", fmt.Sprintf(`{"wallet_id":%q,"input":%q}`, alice, inv), token), 201)
	}
	for _, c := range cs {
		var w struct {
			Balance struct {
				AvailableMsat int64 `json:"available_msat"`
			} `json:"balance"`
		}
		c.decode(c.expect(c.call("GET", "/v1/wallets/"+alice, "", token), 200), &w)
		if w.Balance.AvailableMsat != 98_000 {
			t.Fatalf("alice's balance on %s = %d, want 98000", c.base, w.Balance.AvailableMsat)
		}
		for _, path := range []string{
			"/v1/system/health", "/v1/system/ready", "/v1/me", "/v1/me/balance", "/v1/wallets",
			"/v1/invoices", "/v1/payments?wallet_id=" + alice, "/v1/lightning-node/info", "/v1/api-keys", "/v1/plugins",
		} {
			r := c.call("GET", path, "", token)
			if r.code >= 300 {
				t.Errorf("GET %s on %s = %d %s", path, c.base, r.code, r.body)
			}
		}
	}

	// The password changes on A; B refuses the old token within a second.
	a.expect(a.call("POST", "/v1/auth/change-password",
		`{"current_password":"correct horse battery","new_password":"staple battery horse"}`, token), 204)
	changed := time.Now()
	a.expect(a.call("GET", "/v1/me", "", token), 401)
	for b.call("GET", "/v1/me", "", token).code != 401 {
		if time.Since(changed) > time.Second {
			t.Fatal("replica B still accepts the old token a second after the password change on A")
		}
		time.Sleep(5 * time.Millisecond) // polling the condition
	}
	t.Logf("replica B refused the old token %s after the change on A", time.Since(changed).Round(time.Millisecond))
	var fresh struct{ Token string }
	b.decode(b.expect(b.call("POST", "/v1/auth/sign-in", `{"password":"staple battery horse"}`, ""), 200), &fresh)
	a.expect(a.call("GET", "/v1/me", "", fresh.Token), 200)
}

func newHTTPClient(t *testing.T) *http.Client {
	c := &http.Client{Timeout: time.Minute}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func signUp(t *testing.T, c *client) string {
	t.Helper()
	var tok struct{ Token string }
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	return tok.Token
}

func createWallet(t *testing.T, c *client, token, user string) string {
	t.Helper()
	var w struct{ ID string }
	c.decode(c.expect(c.call("POST", "/v1/wallets", fmt.Sprintf(`{"user_id":%q}`, user), token), 201), &w)
	return w.ID
}

func createInvoice(t *testing.T, c *client, token, walletID string, msat int64) string {
	t.Helper()
	r := c.call("POST", "/v1/invoices", fmt.Sprintf(`{"wallet_id":%q,"amount_msat":%d}`, walletID, msat), token)
	c.expect(r, 201)
	var inv struct {
		LnInvoice struct{ Bolt11 string } `json:"ln_invoice"`
	}
	if err := json.Unmarshal(r.body, &inv); err != nil || !strings.HasPrefix(inv.LnInvoice.Bolt11, "lnbcrt") {
		t.Fatalf("invoice %s: %v", r.body, err)
	}
	return inv.LnInvoice.Bolt11
}
