package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// freeAddr is a loopback address no one listens on now: a server's
// public URL must be known before it listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// withdrawInstance is one `hearth serve` of the withdraw test: its client
// and its admin's token.
type withdrawInstance struct {
	c       *client
	token   string
	environ []string
}

// serveWithdraw serves Hearth on node's lnd over db, reachable at its
// public URL by the other instance.
func serveWithdraw(t *testing.T, node *regtest.Node, db string) *withdrawInstance {
	t.Helper()
	addr := freeAddr(t)
	environ := append(serveEnviron(t, db, "HEARTH_NODE_BACKEND=lnd", "HEARTH_NODE_LND_ADDRESS="+node.RPCAddress,
		"HEARTH_NODE_LND_TLS_CERT="+node.TLSCertPath(), "HEARTH_NODE_LND_MACAROON="+node.MacaroonPath()),
		"HEARTH_LISTEN="+addr, "HEARTH_PUBLIC_URL=http://"+addr, "HEARTH_DOMAIN="+addr, "HEARTH_PLUGINS_ALLOW_PRIVATE_HOSTS=true")
	c, _ := serveForTest(t, environ)
	var tok struct {
		Token string `json:"token"`
	}
	c.decode(c.expect(c.call("POST", "/v1/auth/sign-up", `{"password":"correct horse battery"}`, ""), 200), &tok)
	return &withdrawInstance{c: c, token: tok.Token, environ: environ}
}

// available is the admin's available balance.
func (w *withdrawInstance) available() int64 {
	var b struct {
		AvailableMsat int64 `json:"available_msat"`
	}
	w.c.decode(w.c.expect(w.c.call("GET", "/v1/me/balance", "", w.token), 200), &b)
	return b.AvailableMsat
}

// fundFrom has payer (an lnd of the network) pay msat into the admin's
// wallet.
func (w *withdrawInstance) fundFrom(t *testing.T, payer *regtest.Node, msat int64) {
	t.Helper()
	var inv struct {
		LnInvoice struct {
			Bolt11 string `json:"bolt11"`
		} `json:"ln_invoice"`
	}
	w.c.decode(w.c.expect(w.c.call("POST", "/v1/me/invoices", fmt.Sprintf(`{"amount_msat":%d}`, msat), w.token), 201), &inv)
	if _, err := payer.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 30*time.Second, func() error {
		if a := w.available(); a != msat {
			return fmt.Errorf("available %d, want %d", a, msat)
		}
		return nil
	})
}

// link makes a withdraw link of the admin's wallet.
func (w *withdrawInstance) link(body string) (lnurl, lnurlw string) {
	var l struct {
		LNURL  string `json:"lnurl"`
		LNURLW string `json:"lnurlw"`
	}
	w.c.decode(w.c.expect(w.c.call("POST", "/v1/me/withdraw-links", body, w.token), 201), &l)
	return l.LNURL, l.LNURLW
}

// pull claims input into the admin's wallet and waits until the other
// side has paid it: the invoice Settled.
func (w *withdrawInstance) pull(t *testing.T, input string, msat int64) {
	t.Helper()
	var inv struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	w.c.decode(w.c.expect(w.c.call("POST", "/v1/me/lnurl-withdraw", fmt.Sprintf(`{"input":%q,"amount_msat":%d}`, input, msat), w.token), 202), &inv)
	poll.Until(t, 60*time.Second, func() error {
		w.c.decode(w.c.expect(w.c.call("GET", "/v1/me/invoices/"+inv.ID, "", w.token), 200), &inv)
		if inv.Status != "Settled" {
			return fmt.Errorf("the pulled invoice is %s", inv.Status)
		}
		return nil
	})
}

// withdrawNetwork is the regtest network of the withdraw test alone: its
// two lnd nodes each carry a Hearth of their own.
var withdrawNetwork regtest.Shared

// Two instances of `hearth serve`, each on its own lnd of a regtest
// network of its own (one on SQLite, the other on PostgreSQL when there is
// one), claim each other's withdraw links over HTTP: the claimer's invoice
// made on its node, paid by the link's node over the channel, once; a link
// used up refuses the next claim, and the books of both stay whole.
func TestWithdrawLinksAcrossInstances(t *testing.T) {
	t.Parallel()
	netw := withdrawNetwork.Get(t)
	a := serveWithdraw(t, netw.Hearth, "sqlite")
	b := serveWithdraw(t, netw.Peer, "postgres")
	a.fundFrom(t, netw.Peer, 500_000)
	b.fundFrom(t, netw.Hearth, 400_000)

	// B claims A's link (bech32); A's node pays B's node.
	aLNURL, _ := a.link(`{"title":"From A","min_msat":1000,"max_msat":60000,"uses":1}`)
	b.pull(t, aLNURL, 50_000)
	if got := b.available(); got != 400_000+50_000 {
		t.Errorf("B has %d msat after its claim, want 450000", got)
	}
	if got := a.available(); got > 500_000-50_000 || got < 500_000-50_000-10_000 {
		t.Errorf("A has %d msat after paying a 50000 msat claim", got)
	}
	r := b.c.call("POST", "/v1/me/lnurl-withdraw", fmt.Sprintf(`{"input":%q}`, aLNURL), b.token)
	b.c.expect(r, 422)

	// A claims B's link (lnurlw://); B's node pays A's node.
	_, bLNURLW := b.link(`{"title":"From B","min_msat":1000,"max_msat":30000,"uses":3}`)
	before := a.available()
	a.pull(t, bLNURLW, 30_000)
	a.pull(t, bLNURLW, 20_000)
	if got := a.available(); got != before+50_000 {
		t.Errorf("A has %d msat after two claims, want %d", got, before+50_000)
	}
	for _, w := range []*withdrawInstance{a, b} {
		if out := runHearth(t, w.environ, "ledger", "check"); !strings.Contains(out, "every wallet balances") {
			t.Errorf("the books of %s:\n%s", w.c.base, out)
		}
	}
}
