package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcutil"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/chromedp/chromedp"

	"github.com/hearthwallet/hearth/testkit/regtest"
)

// chain is the package's regtest network (btcd, Hearth's lnd and an
// outside peer), started by the first test that needs it.
var chain regtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	chain.Close()
	os.Exit(code)
}

// startOnchainHearth starts a server on SQLite with the built-in on-chain
// wallet, as `hearth serve` wires it: over the lnd node of net when net is
// not nil, else over the embedded node, whose bitcoin routes answer 422
// onchain_unavailable.
func startOnchainHearth(t *testing.T, net *regtest.Network) *hearth {
	t.Helper()
	return startHearthWith(t, serverOptions{onchain: true, chainNet: net})
}

// onchainPerson signs the admin up on h and opens a browser signed in.
func onchainPerson(t *testing.T, h *hearth, minutes int) *person {
	t.Helper()
	chromium := chromiumPath(t)
	h.call("POST", "/v1/system/mark-welcome-complete", nil, http.StatusNoContent, nil)
	h.call("POST", "/v1/auth/sign-up", map[string]string{"password": password}, http.StatusOK, nil)
	p := openDashboard(t, chromium, h.URL, time.Duration(minutes)*time.Minute)
	p.do("sign in", chromedp.Navigate(h.URL+"/"), typeIn("Password", password), click(button("Sign in")),
		visible(heading("Wallet")), visible(`//span[@role='status'][normalize-space()='Live']`))
	return p
}

// TestDashboardOnchain drives the on-chain screens on a real regtest
// chain: a deposit address got on Receive, its QR code the BIP21 URI
// (upper-cased bech32), paid by the outside node, the deposit Pending
// live with its confirmations, then Settled after a block with the
// balance moved on Home without a reload; the addresses listed, one
// deleted after a confirm step; an on-chain payment to the outside node
// through Send's confirm step (a fee rate typed, the exact fee shown),
// Pending with its txid, Settled after a block; Activity's rows and
// details; at 390 px.
func TestDashboardOnchain(t *testing.T) {
	net := chain.Get(t)
	h := startOnchainHearth(t, net)
	p := onchainPerson(t, h, 10)
	ctx := context.Background()
	p.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))

	// Receive: a Taproot address first, then the default type.
	p.do("open Receive", click(link("Receive")), visible(heading("Receive")),
		visible(`//h2[normalize-space()='Bitcoin (on-chain)']`))
	checkLabels(p)
	p.do("a taproot address", choose("Address type", "p2tr"), click(button("Get deposit address")),
		visible(`//code[@id='btc-address'][starts-with(., 'bcrt1p')]`))
	p.do("a p2wpkh address", choose("Address type", "p2wpkh"), click(button("Get deposit address")),
		visible(`//code[@id='btc-address'][starts-with(., 'bcrt1q')]`),
		visible(`//*[local-name()='svg'][@aria-label='QR code of the bitcoin address']`))
	addr := get(p, "read the address", chromedp.Evaluate[string](`document.getElementById('btc-address').textContent`))
	if got, want := shownQR(p, "QR code of the bitcoin address"), "BITCOIN:"+strings.ToUpper(addr); got != want {
		t.Fatalf("the QR code reads %q, want %q", got, want)
	}
	p.do("an amount in the QR code", typeIn("Amount in the QR code (sats, optional)", "120000"),
		visible(`//p[@id='btc-uri'][normalize-space()=`+xpathString("BITCOIN:"+strings.ToUpper(addr)+"?amount=0.0012")+`]`))
	if got, want := shownQR(p, "QR code of the bitcoin address"), "BITCOIN:"+strings.ToUpper(addr)+"?amount=0.0012"; got != want {
		t.Fatalf("the QR code with an amount reads %q, want %q", got, want)
	}
	checkLabels(p)

	// The addresses: the taproot one deleted after a confirm step.
	p.do("list the addresses", click(button("Show on-chain addresses")),
		visible(`//h3[normalize-space()='On-chain addresses']`),
		visible(`//li[@data-address=`+xpathString(addr)+`]//span[contains(., 'p2wpkh · unused')]`),
		chromedp.WaitNotPresent(button("Show on-chain addresses")))
	taproot := `//li[starts-with(@data-address, 'bcrt1p')]`
	p.do("delete the taproot address", click(taproot+`//button[normalize-space()='Delete address']`),
		click(button("Keep it")), click(taproot+`//button[normalize-space()='Delete address']`),
		click(button("Delete it now")))
	p.do("it is gone", chromedp.WaitNotPresent(taproot))
	p.screenshot("receive-onchain-desktop")

	// The outside node pays it: Pending live (no event: Receive reads
	// the deposit), then Settled at the first block.
	if _, err := net.Peer.SendCoins(ctx, addr, 100_000); err != nil {
		t.Fatal(err)
	}
	p.do("the deposit shows, unconfirmed", visible(`//div[contains(@class,'btc-deposits')]//li[@data-status='Pending'][contains(., '100,000 sats seen, 0 confirmations')]`))
	p.do("home shows it pending", click(link("Home")), balanceIs("0 sats"),
		visible(`//span[@class='row-note'][contains(., '0 confirmations')]`), visible(text("span", "On-chain deposit")))
	p.screenshot("home-onchain-pending-desktop")
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p.do("credited live", balanceIs("100,000 sats"),
		visible(`//li[.//span[normalize-space()='On-chain deposit']]//span[normalize-space()='Settled']`))

	// Send on-chain to the outside node, at 2 sat/vB.
	peerAddr, err := net.Peer.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.do("open Send", click(link("Send")), visible(heading("Send")))
	p.do("review the payment", typeIn("Pay to", peerAddr),
		visible(`//p[contains(., 'On-chain payment to `+peerAddr+`')]`),
		typeIn("Amount (sats)", "40000"), typeIn("Fee rate (sat/vB, optional)", "2"), click(button("Review payment")),
		visible(`//dd[@id='preview-amount'][normalize-space()='40,000 sats']`),
		visible(`//dd[@id='preview-address'][normalize-space()=`+xpathString(peerAddr)+`]`),
		visible(`//dd[@id='preview-fee'][contains(., 'sats at 2 sat/vB')]`))
	checkLabels(p)
	fee := get(p, "read the fee", chromedp.Evaluate[string](`document.getElementById('preview-fee').textContent`))
	p.screenshot("send-onchain-preview-desktop")
	p.do("send", click(button("Send")),
		visible(`//div[@role='status']//span[normalize-space()='Pending']`),
		visible(`//code[@id='result-txid']`))
	txid := get(p, "read the txid", chromedp.Evaluate[string](`document.getElementById('result-txid').textContent`))
	if len(txid) != 64 {
		t.Fatalf("the txid shown is %q", txid)
	}
	if !strings.Contains(get(p, "read the state", chromedp.Evaluate[string](`document.querySelector('.result').textContent`)), strings.Fields(fee)[0]+" sats") {
		t.Fatalf("the pending payment does not show the fee %q", fee)
	}
	p.screenshot("send-onchain-pending-desktop")
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p.do("settled at its block", visible(`//div[@role='status']//span[normalize-space()='Settled']`),
		visible(`//div[@role='status']//p[contains(., 'confirmed')]`))

	// Activity: both on-chain records; the payment's details.
	p.do("open Activity", click(link("Activity")), visible(heading("Activity")), choose("Ledger", "Onchain"),
		visible(`//p[normalize-space()='2 records']`), visible(text("span", "On-chain payment")),
		visible(`//span[@class='row-note'][contains(., 'fee `+strings.Fields(fee)[0]+` sats · tx `+txid[:12]+`')]`))
	p.screenshot("activity-onchain-desktop")
	p.do("the payment's details", click(`//a[.//span[normalize-space()='On-chain payment']]`), visible(heading("Payment")),
		visible(`//code[@id='detail-txid'][normalize-space()=`+xpathString(txid)+`]`), visible(`//dd/span[normalize-space()='Settled']`))

	// At 390 px.
	p.do("narrow the window", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	p.do("receive at 390 px", click(link("Receive")), visible(heading("Receive")), click(button("Get deposit address")),
		visible(`//code[@id='btc-address'][starts-with(., 'bcrt1q')]`),
		visible(`//h3[normalize-space()='On-chain addresses']`)) // listed at once: on-chain is known to work
	if next := get(p, "read the new address", chromedp.Evaluate[string](`document.getElementById('btc-address').textContent`)); next == addr {
		t.Fatal("the paid address was handed out again")
	}
	checkNoOverflow(p)
	p.screenshot("receive-onchain-390")
	p.do("home at 390 px", click(link("Home")), balanceIs(fmt.Sprintf("%s sats", formatSats(100_000-40_000-feeSats(t, fee)))))
	checkNoOverflow(p)
	p.screenshot("home-onchain-390")

	if !get(p, "no reload happened", chromedp.Evaluate[bool](`window.sameDocument === true`)) {
		t.Error("the page was reloaded during the run")
	}
	p.w.check(t)
}

// feeSats reads the sats of a fee shown as "1,234 sats at …".
func feeSats(t *testing.T, shown string) int64 {
	t.Helper()
	var n int64
	for _, r := range strings.Fields(shown)[0] {
		switch {
		case r >= '0' && r <= '9':
			n = n*10 + int64(r-'0')
		case r != ',':
			t.Fatalf("the fee shown is %q", shown)
		}
	}
	return n
}

// formatSats writes n with thousands separators, as the page does.
func formatSats(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestDashboardOnchainEmbedded: on the embedded node the on-chain part of
// Receive says why it is not there, after the one 422 it asked, and at
// once on the next visit; Send refuses an address as the API words it.
func TestDashboardOnchainEmbedded(t *testing.T) {
	t.Parallel()
	h := startOnchainHearth(t, nil)
	p := onchainPerson(t, h, 5)
	p.do("open Receive", click(link("Receive")), visible(heading("Receive")),
		visible(`//h2[normalize-space()='Bitcoin (on-chain)']`))
	p.do("ask for an address", click(button("Get deposit address")),
		visible(`//p[@id='onchain-unavailable'][contains(., 'embedded node')]`))
	p.w.take(t, "/v1/me/bitcoin/address answered 422")
	p.w.take(t, "status of 422")
	if n := get(p, "no button left", chromedp.Evaluate[int](`document.querySelectorAll('.receive-onchain button').length`)); n != 0 {
		t.Fatalf("the on-chain part still offers %d buttons", n)
	}
	p.do("again", click(link("Home")), visible(heading("Wallet")), click(link("Receive")),
		visible(`//p[@id='onchain-unavailable']`))
	checkLabels(p)
	p.screenshot("receive-onchain-embedded-desktop")
	to, err := btcutil.NewAddressWitnessPubKeyHash(make([]byte, 20), &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatal(err)
	}
	p.do("send to an address", click(link("Send")), typeIn("Pay to", to.EncodeAddress()),
		visible(input("Fee rate (sat/vB, optional)")), typeIn("Amount (sats)", "1000"), click(button("Review payment")),
		visible(`//p[@role='alert'][contains(., 'lnd or cln')]`))
	p.w.take(t, "fee-estimate answered 422")
	p.w.take(t, "status of 422")
	p.w.check(t)
}
