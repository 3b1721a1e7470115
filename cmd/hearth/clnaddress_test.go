package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugins/nostr"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// clnNetwork is the real Core Lightning network (testkit/regtest) of the
// package's tests that run Hearth on lightningd.
var clnNetwork regtest.SharedCLN

// clnServeEnv configures `hearth serve` on Hearth's lightningd of net, in
// a fresh data directory.
func clnServeEnv(t *testing.T, net *regtest.CLNNetwork) []string {
	return []string{
		"HEARTH_DATA_DIR=" + t.TempDir(),
		"HEARTH_NODE_BACKEND=cln",
		"HEARTH_NODE_CLN_RPC_FILE=" + net.Hearth.RPCPath(),
		"HEARTH_NODE_CLN_GUARD_PLUGIN=" + net.GuardPlugin,
	}
}

// TestLNURLWithCLN is TestLNURLWithLND on a real lightningd: Hearth pays
// an outside LNURL-pay server backed by the outside lnd, and the outside
// lnd pays Hearth's Lightning Address, whose invoice lightningd makes
// committing to the metadata's hash (deschashonly).
func TestLNURLWithCLN(t *testing.T) {
	net := clnNetwork.Get(t)
	lnurlOverHTTP(t, clnServeEnv(t, net), net.LND)
}

// A zap on a real lightningd: the outside lnd pays the invoice of a zap
// request made through Hearth's Lightning Address, the zap is credited,
// and its receipt reaches the request's relay once, signed by the key
// the payRequest advertised, naming the invoice and the request as sent.
func TestZapWithCLN(t *testing.T) {
	net := clnNetwork.Get(t)
	relay := startRelay(t)
	c, stop := serveForTest(t, append(clnServeEnv(t, net), "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true",
		"HEARTH_DOMAIN=hearth.test", "HEARTH_PUBLIC_URL=https://hearth.test"))
	defer stop()
	token := signUp(t, c)
	alice, sender := newNostrUser(t), newNostrUser(t)
	c.expect(c.call("POST", "/v1/me/lightning-address",
		`{"username":"alice","allows_nostr":true,"nostr_pubkey":"`+alice.pk+`"}`, token), 201)
	var pp lnurl.PayParams
	c.decode(c.expect(c.call("GET", "/.well-known/lnurlp/alice", "", ""), 200), &pp)
	if !pp.AllowsNostr || pp.NostrPubkey == "" || pp.NostrPubkey == alice.pk {
		t.Fatalf("payRequest %+v", pp)
	}
	raw, _ := zapRequest(t, sender, "zapped on lightningd", gonostr.Tags{{"relays", relay.URL()}, {"amount", "21000"}, {"p", alice.pk}})
	cb, err := url.Parse(pp.Callback)
	if err != nil {
		t.Fatal(err)
	}
	var inv lnurl.Invoice
	c.decode(c.expect(c.call("GET", cb.Path+"?"+url.Values{"amount": {"21000"}, "nostr": {raw}}.Encode(), "", ""), 200), &inv)
	id := inv.Verify[strings.LastIndex(inv.Verify, "/")+1:]

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := net.LND.Pay(ctx, inv.PR, 10_000); err != nil {
		t.Fatalf("the outside lnd pays the zap: %v", err)
	}
	var receipt string
	poll.Until(t, time.Minute, func() error {
		var z nostr.Zap
		c.decode(c.expect(c.call("GET", "/v1/me/zaps/"+id, "", token), 200), &z)
		if z.ReceiptID == nil || len(z.Relays) != 1 || z.Relays[0].State != "published" {
			return fmt.Errorf("zap %+v: not published yet", z)
		}
		receipt = *z.ReceiptID
		return nil
	})
	relay.checkPublished(t, receipt, pp.NostrPubkey, inv.PR, raw)
	var b struct {
		AvailableMsat int64 `json:"available_msat"`
	}
	c.decode(c.expect(c.call("GET", "/v1/me/balance", "", token), 200), &b)
	if b.AvailableMsat != 21_000 {
		t.Fatalf("balance after the zap: %d msat, want 21000", b.AvailableMsat)
	}
}
