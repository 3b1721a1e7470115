// Command paywall is a Hearth plugin that sells one piece of content: its
// public route /buy returns an invoice, and /content/{invoice id} returns
// the content once that invoice is paid (402 with the invoice until then).
package main

import (
	"strings"

	"github.com/hearthwallet/hearth/sdk"
)

type config struct {
	PriceMsat int64  `json:"price_msat"`
	Title     string `json:"title"`
	Content   string `json:"content"`
}

func onSettled(e sdk.Event) error {
	// Only invoices this plugin issued unlock anything.
	if _, found, err := sdk.KV.Get("invoice/" + e.ID()); err != nil || !found {
		return err
	}
	return sdk.KV.Set("paid/"+e.ID(), []byte("1"))
}

func serve(r *sdk.Request) *sdk.Response {
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return sdk.JSON(500, map[string]string{"error": "no configuration"})
	}
	switch {
	case r.Method == "GET" && r.Path == "/buy":
		inv, err := sdk.CreateInvoice(sdk.NewInvoice{AmountMsat: cfg.PriceMsat, Description: cfg.Title, Expiry: 3600})
		if err != nil {
			sdk.Log.Error("creating invoice: " + err.Error())
			return sdk.JSON(503, map[string]string{"error": "cannot create an invoice now"})
		}
		if err := sdk.KV.Set("invoice/"+inv.ID, []byte(inv.Bolt11())); err != nil {
			return sdk.JSON(503, map[string]string{"error": "cannot record the invoice"})
		}
		return sdk.JSON(201, map[string]any{"invoice_id": inv.ID, "bolt11": inv.Bolt11(), "amount_msat": cfg.PriceMsat})
	case r.Method == "GET" && strings.HasPrefix(r.Path, "/content/"):
		id := strings.TrimPrefix(r.Path, "/content/")
		bolt11, issued, err := sdk.KV.Get("invoice/" + id)
		if err != nil {
			return sdk.JSON(503, map[string]string{"error": "try again"})
		}
		if !issued {
			return sdk.JSON(404, map[string]string{"error": "unknown invoice"})
		}
		if _, paid, _ := sdk.KV.Get("paid/" + id); !paid {
			return sdk.JSON(402, map[string]string{"error": "payment required", "bolt11": string(bolt11)})
		}
		return &sdk.Response{Status: 200, Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, Body: []byte(cfg.Content)}
	}
	return sdk.JSON(404, map[string]string{"error": "not found"})
}

func init() {
	sdk.OnEvent(sdk.InvoiceSettled, onSettled)
	sdk.HandleHTTP(serve)
}

func main() {}
