package main

import (
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"

	goqr "github.com/piglig/go-qr"

	"github.com/hearthwallet/hearth/sdk"
)

// saleExpiry is how long a sale's invoice may be paid, in seconds.
const saleExpiry = 15 * 60

// sell makes the invoice of a sale: the amount typed, plus a tip the shop
// offers, in the shop's currency, converted by Hearth at its rate of now.
func sell(r *sdk.Request, s *shop) *sdk.Response {
	var in struct {
		Amount     string `json:"amount"`
		TipPercent int    `json:"tip_percent"`
	}
	if err := json.Unmarshal(r.Body, &in); err != nil {
		return fail(400, "a JSON body: {amount, tip_percent}")
	}
	amount, err := parseAmount(in.Amount, s.Currency)
	if err != nil {
		return fail(400, "amount: "+err.Error())
	}
	if in.TipPercent != 0 && !slices.Contains(s.Tips, in.TipPercent) {
		return fail(400, "tip_percent: one the shop offers, or 0")
	}
	total := new(big.Rat).Mul(amount, big.NewRat(int64(100+in.TipPercent), 100))
	totalText, subtotal := format(total, s.Currency), format(amount, s.Currency)
	tip := new(big.Rat).Sub(mustRat(totalText), mustRat(subtotal))
	inv, err := sdk.Receive(s.WalletID, sdk.NewInvoice{Amount: totalText, Currency: s.Currency, Expiry: saleExpiry,
		Description: s.Title + ": " + totalText + " " + s.Currency, Tag: saleTag})
	if err != nil {
		return refused(err)
	}
	if inv.Fiat == nil || inv.LnInvoice == nil || inv.AmountMsat == nil {
		return fail(502, "Hearth answered an invoice without its amount")
	}
	return sdk.JSON(201, map[string]any{
		"id": inv.ID, "bolt11": inv.LnInvoice.Bolt11, "amount_msat": *inv.AmountMsat,
		"subtotal": subtotal, "tip_percent": in.TipPercent, "tip": format(tip, s.Currency), "total": totalText,
		"currency": inv.Fiat.Currency, "rate": inv.Fiat.Rate, "at": inv.Fiat.At, "fixed": inv.Fiat.Fixed,
		"qr": "/v1/plugins/" + name + "/s/" + s.UserID + "/sale/" + inv.ID + "/qr.svg",
	})
}

// refused answers an error of Hearth's.
func refused(err error) *sdk.Response {
	var e *sdk.Error
	if errors.As(err, &e) {
		switch e.Code {
		case "rates_unavailable", "unavailable":
			return fail(503, "no price now: "+e.Message)
		case "unknown_currency", "invalid_amount", "invalid":
			return fail(422, e.Message)
		}
	}
	return fail(503, "try again")
}

// sale is the invoice id of shop s, if it is a sale of the shop.
func sale(s *shop, id string) (*sdk.Invoice, *sdk.Response) {
	if id == "" || len(id) > 64 {
		return nil, fail(404, "no such sale")
	}
	inv, err := sdk.ReceivedInvoice(s.WalletID, id)
	var e *sdk.Error
	switch {
	case errors.As(err, &e) && (e.Code == "not_found" || e.Code == "invalid"):
		return nil, fail(404, "no such sale")
	case err != nil:
		return nil, fail(503, "try again")
	case inv.Tag == nil || inv.Tag.Value != saleTag:
		return nil, fail(404, "no such sale")
	}
	return inv, nil
}

// saleStatus answers whether a sale is paid: what the page polls.
func saleStatus(s *shop, id string) *sdk.Response {
	inv, resp := sale(s, id)
	if resp != nil {
		return resp
	}
	return sdk.JSON(200, map[string]any{"id": inv.ID, "status": inv.Status, "paid": inv.Status == "Settled",
		"payment_time": inv.PaymentTime})
}

// saleQR answers a sale's invoice as a QR code (SVG), upper case (the QR's
// alphanumeric mode) behind lightning:, as wallets scan it.
func saleQR(s *shop, id string) *sdk.Response {
	inv, resp := sale(s, id)
	if resp != nil {
		return resp
	}
	if inv.LnInvoice == nil {
		return fail(404, "no invoice to show")
	}
	svg, err := QR(inv.LnInvoice.Bolt11)
	if err != nil {
		return fail(500, "could not draw the QR code")
	}
	return &sdk.Response{Status: 200, Body: svg,
		Headers: map[string]string{"Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=900"}}
}

// QR is the QR code of bolt11 as the page shows it: an SVG. Its mask is
// fixed (any mask reads alike): choosing the best of eight costs twenty
// times the rest, past a plugin call's CPU burst in the sandbox.
func QR(bolt11 string) ([]byte, error) {
	code, err := QRCode(bolt11)
	if err != nil {
		return nil, err
	}
	return code.ToSVGBytes(goqr.NewQrCodeImgConfig(8, 4))
}

// QRCode is the QR code of bolt11: its text upper case behind lightning:.
func QRCode(bolt11 string) (*goqr.QrCode, error) {
	segs, err := goqr.MakeSegments(strings.ToUpper("lightning:" + bolt11))
	if err != nil {
		return nil, err
	}
	return goqr.EncodeSegments(segs, goqr.Medium, 1, 40, 0, true)
}

// shopInfo is what the page needs: the shop and the rate of now.
func shopInfo(s *shop) *sdk.Response {
	out := map[string]any{"title": s.Title, "currency": s.Currency, "places": places(s.Currency),
		"tips": s.Tips, "items": s.Items}
	if s.Tips == nil {
		out["tips"] = []int{}
	}
	if s.Items == nil {
		out["items"] = []item{}
	}
	if rate, err := sdk.Rate(s.Currency); err == nil {
		out["rate"] = map[string]any{"rate": rate.Rate, "at": rate.At, "fixed": rate.Fixed}
	}
	return sdk.JSON(200, out)
}

func mustRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}
