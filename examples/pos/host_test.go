//go:build !wasip1

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	goqr "github.com/piglig/go-qr"

	"github.com/hearthwallet/hearth/plugintest"
)

// grant is what the admin grants the point of sale: what it declares.
var grant = []string{"read:transaction", "write:transaction", "wallet:receive-any", "wallet:read-any", "caller:act", "rates:read"}

// TestInTheHost runs the point of sale in a real host, with Hearth's rates
// plugin at fixed prices, on each database: two merchants open shops in
// their currencies; a sale of 5.00 USD with a 10 % tip asks for 5.50 USD
// at the rate, to the msat; its QR code is its invoice; paid from outside,
// it reads as paid and the money is in the merchant's wallet; the other
// merchant's sale pays into theirs. A shop's page reaches nothing but its
// own sales.
func TestInTheHost(t *testing.T) {
	manifest, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	module := plugintest.Build(t, ".")
	plugintest.Each(t, plugintest.Options{Rates: "USD:95000,EUR:88000"}, func(t *testing.T, e *plugintest.Env) {
		e.Install(module, manifest)
		e.Enable("pos", "", grant...)
		alice, bob := e.Wallet("alice", 0), e.Wallet("bob", 0)
		owner := []string{"read:transaction", "write:transaction"}
		call := func(status int, want int, body []byte, v any) {
			t.Helper()
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			if v != nil {
				if err := json.Unmarshal(body, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		var opened struct{ Page, Currency string }
		r := e.RequestAs("pos", "alice", owner, "PUT", "/me",
			[]byte(`{"title":"Alice's café","currency":"usd","tips":[10,15,20],"items":[{"name":"Coffee","price":"3.50"}]}`))
		call(r.Status, 200, r.Body, &opened)
		if opened.Page != "/v1/plugins/pos/s/alice" || opened.Currency != "USD" {
			t.Fatalf("alice's shop: %s", r.Body)
		}
		r = e.RequestAs("pos", "bob", owner, "PUT", "/me", []byte(`{"title":"Bob's books","currency":"EUR"}`))
		call(r.Status, 200, r.Body, nil)
		r = e.RequestAs("pos", "carol", owner, "PUT", "/me", []byte(`{"title":"Gold","currency":"XAU"}`))
		call(r.Status, 422, r.Body, nil)

		var info struct {
			Title, Currency string
			Places          int
			Tips            []int
			Rate            struct{ Rate string }
		}
		r = e.Get("pos", "/s/alice/shop")
		call(r.Status, 200, r.Body, &info)
		if info.Currency != "USD" || info.Places != 2 || len(info.Tips) != 3 || info.Rate.Rate != "1052.6315789474" ||
			r.Headers["Access-Control-Allow-Origin"] != "*" {
			t.Fatalf("alice's shop to the page: %s %v", r.Body, r.Headers)
		}
		page := e.Get("pos", "/s/alice")
		if page.Status != 200 || page.Headers["Content-Type"] != "text/html; charset=utf-8" || !bytes.Contains(page.Body, []byte("/v1/plugins/pos/assets/pos.js")) {
			t.Fatalf("the page: %d %v", page.Status, page.Headers)
		}

		type saleAnswer struct {
			ID, Bolt11, Subtotal, Tip, Total, Currency, Rate, QR string
			AmountMsat                                           int64 `json:"amount_msat"`
		}
		var sale saleAnswer
		r = e.Post("pos", "/s/alice/sale", []byte(`{"amount":"5.00","tip_percent":10}`))
		call(r.Status, 201, r.Body, &sale)
		want := msatOf(t, "5.50", sale.Rate)
		if sale.Subtotal != "5.00" || sale.Tip != "0.50" || sale.Total != "5.50" || sale.Currency != "USD" ||
			sale.Rate != "1052.6315789474" || sale.AmountMsat != want || want != 5_789_474 {
			t.Fatalf("the sale: %s, want 5.50 USD = %d msat", r.Body, want)
		}
		qr := e.Get("pos", sale.QR[len("/v1/plugins/pos"):])
		drawn, err := QR(sale.Bolt11)
		if err != nil || qr.Status != 200 || qr.Headers["Content-Type"] != "image/svg+xml" || !bytes.Equal(qr.Body, drawn) {
			t.Fatalf("the QR code served is not the sale's invoice's: %d %v", qr.Status, err)
		}
		if read := scan(t, sale.Bolt11); read != "LIGHTNING:"+strings.ToUpper(sale.Bolt11) {
			t.Fatalf("the QR code reads %q", read)
		}
		var status struct {
			Status string
			Paid   bool
		}
		r = e.Get("pos", "/s/alice/sale/"+sale.ID)
		call(r.Status, 200, r.Body, &status)
		if status.Paid {
			t.Fatalf("an unpaid sale reads paid: %s", r.Body)
		}
		if err := e.Node.PayAsOutsider(context.Background(), sale.Bolt11); err != nil {
			t.Fatal(err)
		}
		r = e.Get("pos", "/s/alice/sale/"+sale.ID)
		call(r.Status, 200, r.Body, &status)
		if !status.Paid || status.Status != "Settled" {
			t.Fatalf("a paid sale: %s", r.Body)
		}
		if got := e.Balance(alice.ID).AvailableMsat; got != want {
			t.Fatalf("alice has %d msat, want %d", got, want)
		}

		var bobs saleAnswer
		r = e.Post("pos", "/s/bob/sale", []byte(`{"amount":"12.00"}`))
		call(r.Status, 201, r.Body, &bobs)
		if err := e.Node.PayAsOutsider(context.Background(), bobs.Bolt11); err != nil {
			t.Fatal(err)
		}
		if got := e.Balance(bob.ID).AvailableMsat; got != bobs.AmountMsat || bobs.AmountMsat != 13_636_364 { // 12 × 10^8/88000 sat
			t.Fatalf("bob has %d msat, want his sale's %d (13,636,364)", got, bobs.AmountMsat)
		}
		if got := e.Balance(alice.ID).AvailableMsat; got != want {
			t.Fatalf("bob's sale moved alice's balance: %d", got)
		}

		// The page reaches its own shop's sales alone.
		own := e.UserInvoice(alice.ID, 1000, "not a sale")
		for path, code := range map[string]int{
			"/s/bob/sale/" + sale.ID:   404, // alice's sale through bob's shop
			"/s/alice/sale/" + own.ID:  404, // an invoice alice made herself
			"/s/alice/sale/nope":       404,
			"/s/nobody/shop":           404,
			"/s/alice/balance":         404,
			"/assets/../manifest.json": 404,
			"/s/alice/sale/" + bobs.ID: 404,
			"/s/bob/sale/" + bobs.ID:   200,
		} {
			if r := e.Get("pos", path); r.Status != code {
				t.Errorf("GET %s: %d, want %d: %s", path, r.Status, code, r.Body)
			}
		}
		for body, code := range map[string]int{
			`{"amount":"5.001"}`:                  400, // USD has two decimals
			`{"amount":"0"}`:                      400,
			`{"amount":"5.00","tip_percent":12}`:  400, // not one the shop offers
			`{"amount":"5.00","tip_percent":-10}`: 400,
			`not json`:                            400,
		} {
			if r := e.Post("pos", "/s/alice/sale", []byte(body)); r.Status != code {
				t.Errorf("POST sale %s: %d, want %d: %s", body, r.Status, code, r.Body)
			}
		}
		e.CheckLedger()
	})
}

// msatOf is amount × rate (sat per unit) × 1000, to the nearest msat.
func msatOf(t *testing.T, amount, rate string) int64 {
	t.Helper()
	a, ok := new(big.Rat).SetString(amount)
	r, ok2 := new(big.Rat).SetString(rate)
	if !ok || !ok2 {
		t.Fatalf("%q × %q", amount, rate)
	}
	msat := new(big.Rat).Mul(a, r)
	msat.Mul(msat, big.NewRat(1000, 1)).Add(msat, big.NewRat(1, 2))
	return new(big.Int).Quo(msat.Num(), msat.Denom()).Int64()
}

// scan reads the QR code the page shows for bolt11 as a camera would: drawn
// as an image and decoded.
func scan(t *testing.T, bolt11 string) string {
	t.Helper()
	code, err := QRCode(bolt11)
	if err != nil {
		t.Fatal(err)
	}
	img, err := code.ToImage(goqr.NewQrCodeImgConfig(8, 4))
	if err != nil {
		t.Fatal(err)
	}
	text, err := goqr.Decode(img)
	if err != nil {
		t.Fatalf("decoding the QR code: %v", err)
	}
	return text
}
