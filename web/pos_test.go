package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png" // screenshots
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/chaincfg"
	"github.com/chromedp/chromedp"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/bolt11"
	"github.com/hearthwallet/hearth/lib/fiat"
	"github.com/hearthwallet/hearth/plugintest"
)

// The point of sale (examples/pos, a WebAssembly plugin) walked in
// Chromium as a merchant's staff would: the page of a shop in USD, 5.00
// typed, a 10 % tip, Charge; the QR code on screen is the invoice, for the
// msat of 5.50 USD at the rate the page shows; paid from outside, the page
// says Paid within 2 seconds, and the money is in the merchant's wallet.
// A second merchant's page, in EUR, pays into the second wallet. The page
// runs sandboxed: in an origin of its own, no storage of the server's.
func TestPointOfSaleInBrowser(t *testing.T) {
	t.Parallel()
	chromium := chromiumPath(t)
	h := startHearthWith(t, serverOptions{wasm: true, rates: "USD:95000,EUR:88000"})
	ctx := context.Background()
	module := plugintest.Build(t, filepath.Join("..", "examples", "pos"))
	manifest, err := os.ReadFile(filepath.Join("..", "examples", "pos", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(module)
	if _, err := h.app.Registry.Install(ctx, manifest, module, hex.EncodeToString(sum[:])); err != nil {
		t.Fatal(err)
	}
	grant := []string{"read:transaction", "write:transaction", "wallet:receive-any", "wallet:read-any", "caller:act", "rates:read"}
	if _, err := h.app.Registry.Enable(ctx, plugintest.Admin, "pos", grant, ""); err != nil {
		t.Fatal(err)
	}
	shops := map[string]string{
		"cafe":  `{"title":"Corner café","currency":"USD","tips":[10,15,20],"items":[{"name":"Coffee","price":"3.50"}]}`,
		"books": `{"title":"Old books","currency":"EUR"}`,
	}
	tokens := map[string]string{}
	for user, shop := range shops {
		if _, err := h.app.Wallets.Ensure(ctx, user); err != nil {
			t.Fatal(err)
		}
		tok, err := h.app.Tokens.Issue(user, auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		tokens[user] = tok
		h.call("PUT", "/v1/plugins/pos/me", json.RawMessage(shop), 200, nil, "Authorization", "Bearer "+tok)
	}
	page := h.URL + "/v1/plugins/pos/s/cafe"
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Content-Security-Policy"); got != host.PageCSP {
		t.Fatalf("the page's policy = %q, want the host's %q", got, host.PageCSP)
	}

	p := openDashboard(t, chromium, h.URL, 5*time.Minute)
	p.do("open the café's point of sale", chromedp.Navigate(page), visible(heading("Corner café")),
		visible(`//p[@id='rate'][normalize-space()='1 USD = 1,052.63 sat (a rate set by hand)']`))
	origin := get(p, "where the page runs", chromedp.Evaluate[[]string](`[self.origin,
		(() => { try { sessionStorage.length; return 'readable'; } catch (e) { return 'blocked'; } })()]`))
	if origin[0] != "null" || origin[1] != "blocked" {
		t.Fatalf("the page runs in origin %q with the server's storage %s; want a sandbox of its own", origin[0], origin[1])
	}
	sale := sell(p, "5.00", "10 %", "5.50 USD")
	p.screenshot("pos-invoice")
	rate := get(p, "read the rate", chromedp.Evaluate[string](`document.getElementById('due-sats').dataset.rate`))
	want, err := fiat.Msat("5.50", rate)
	if err != nil || rate != "1052.6315789474" {
		t.Fatalf("the rate shown: %q (%v)", rate, err)
	}
	checkSale(t, p, sale, want)
	payAndSeePaid(t, p, h, sale)
	p.do("see the receipt", visible(`//dl[@id='receipt']/dd[normalize-space()='5.50 USD']`),
		visible(`//dl[@id='receipt']/dd[normalize-space()='0.50 USD (10 %)']`))
	p.screenshot("pos-receipt")
	var cafe, books balance
	h.call("GET", "/v1/me/balance", nil, 200, &cafe, "Authorization", "Bearer "+tokens["cafe"])
	if cafe.AvailableMsat != want {
		t.Fatalf("the café has %d msat, want %d (5.50 USD at %s sat)", cafe.AvailableMsat, want, rate)
	}
	p.do("a new sale forgets the last", click(button("New sale")), visible(`//output[@id='amount'][normalize-space()='0.00']`))

	p.do("open the bookshop's point of sale", chromedp.Navigate(h.URL+"/v1/plugins/pos/s/books"), visible(heading("Old books")))
	sale = sell(p, "12.00", "", "12.00 EUR")
	eur, _ := fiat.Msat("12.00", "1136.3636363636")
	checkSale(t, p, sale, eur)
	payAndSeePaid(t, p, h, sale)
	h.call("GET", "/v1/me/balance", nil, 200, &books, "Authorization", "Bearer "+tokens["books"])
	h.call("GET", "/v1/me/balance", nil, 200, &cafe, "Authorization", "Bearer "+tokens["cafe"])
	if books.AvailableMsat != eur || cafe.AvailableMsat != want {
		t.Fatalf("the bookshop has %d msat (want %d), the café %d (want %d)", books.AvailableMsat, eur, cafe.AvailableMsat, want)
	}
	p.w.check(t)
}

// sell types amount on the keypad, picks tip (none when empty), charges,
// and returns the invoice the page shows once it shows total due.
func sell(p *person, amount, tip, due string) string {
	p.t.Helper()
	for _, d := range amount {
		if d == '.' {
			continue
		}
		p.do("type "+string(d), click(fmt.Sprintf(`//div[@id='keypad']/button[normalize-space()=%q]`, string(d))))
	}
	p.do("see the amount", visible(fmt.Sprintf(`//output[@id='amount'][normalize-space()=%q]`, amount)))
	if tip != "" {
		p.do("add a tip", click(button(tip)), visible(fmt.Sprintf(`//button[normalize-space()=%q][@aria-pressed='true']`, tip)))
		p.screenshot("pos-keypad")
	}
	p.do("charge", click(button("Charge")), visible(fmt.Sprintf(`//p[@id='due'][normalize-space()=%q]`, due)),
		visible(`//img[@id='qr']`), chromedp.Poll[chromedp.Void](`document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0`))
	return get(p, "read the invoice", chromedp.Evaluate[string](`document.getElementById('bolt11').textContent`))
}

// checkSale checks that the invoice shown asks for msat and that the QR
// code on screen, read as a phone's camera reads it, is that invoice.
func checkSale(t *testing.T, p *person, invoice string, msat int64) {
	t.Helper()
	d, err := bolt11.Decode(invoice, &chaincfg.RegressionNetParams)
	if err != nil {
		t.Fatalf("the invoice shown: %v", err)
	}
	if d.AmountMsat != msat {
		t.Fatalf("the invoice asks for %d msat, want %d", d.AmountMsat, msat)
	}
	// At three device pixels a CSS pixel, as a phone's camera sees it
	// closer: at one, a module is under five pixels and its edges blur.
	shot := get(p, "look at the QR code", chromedp.ScreenshotScale(`//img[@id='qr']`, 3))
	img, _, err := image.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	var res *gozxing.Result
	for _, hint := range []gozxing.DecodeHintType{gozxing.DecodeHintType_PURE_BARCODE, gozxing.DecodeHintType_TRY_HARDER} {
		if res, err = qrcode.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{hint: true}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the QR code on screen does not read: %v", err)
	}
	if got, want := res.GetText(), "LIGHTNING:"+strings.ToUpper(invoice); got != want {
		t.Fatalf("the QR code reads %q, want %q", got, want)
	}
}

// payAndSeePaid pays invoice from outside (the embedded node) and waits,
// 2 seconds at most, for the page to say Paid.
func payAndSeePaid(t *testing.T, p *person, h *hearth, invoice string) {
	t.Helper()
	payer, ok := h.app.Node.(interface {
		PayAsOutsider(ctx context.Context, bolt11 string) error
	})
	if !ok {
		t.Fatal("the node pays nothing from outside")
	}
	if err := payer.PayAsOutsider(context.Background(), invoice); err != nil {
		t.Fatal(err)
	}
	paid := time.Now()
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, visible(text("h2", "Paid"))); err != nil {
		p.fail(fmt.Sprintf("see Paid within 2 s of the payment (%s so far)", time.Since(paid).Round(time.Millisecond)), err)
	}
}
