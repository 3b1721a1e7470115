//go:build !wasip1

package sdk_test

import (
	"fmt"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

func ExampleOnEvent() {
	h := sdktest.New()
	sdk.OnEvent(sdk.InvoiceSettled, func(e sdk.Event) error {
		inv, err := e.Invoice()
		if err != nil {
			return err
		}
		fmt.Println("received", *inv.AmountReceivedMsat, "msat")
		return nil
	})
	h.Deliver(h.SettledInvoice("inv-1", 21000))
	// Output: received 21000 msat
}

func ExampleHandleHTTP() {
	h := sdktest.New()
	sdk.HandleHTTP(func(r *sdk.Request) *sdk.Response {
		return sdk.JSON(200, map[string]string{"hello": r.Path})
	})
	resp, _ := h.Serve(sdk.Request{Method: "GET", Path: "/world"})
	fmt.Println(resp.Status, string(resp.Body))
	// Output: 200 {"hello":"/world"}
}

func ExampleWalletHandle_Balance() {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 5000
	b, err := sdk.Wallet().Balance()
	fmt.Println(b.AvailableMsat, err)
	// Output: 5000 <nil>
}

func ExampleCreateInvoice() {
	sdktest.New()
	inv, err := sdk.CreateInvoice(sdk.NewInvoice{AmountMsat: 1000, Description: "coffee"})
	fmt.Println(inv.Status, inv.Bolt11() != "", err)
	// Output: Pending true <nil>
}

func ExamplePay() {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 10_000
	p, err := sdk.Pay(sdk.PayRequest{Input: "lnbcrt…", AmountMsat: 4000, IdempotencyKey: "order-7"})
	fmt.Println(p.Status, err)
	h.Deny["pay"] = true // as if the admin had not granted write:transaction
	_, err = sdk.Pay(sdk.PayRequest{Input: "lnbcrt…", AmountMsat: 4000})
	fmt.Println(sdk.IsPermissionDenied(err))
	// Output:
	// Settled <nil>
	// true
}

func ExamplePayLightningAddress() {
	h := sdktest.New()
	h.Wallet.Balance.AvailableMsat = 10_000
	p, err := sdk.PayLightningAddress("bob@example.com", 3000, "thanks", "split-inv-1")
	fmt.Println(p.AmountMsat, err)
	// Output: 3000 <nil>
}

func ExampleKVStore() {
	sdktest.New()
	sdk.KV.Set("seen/inv-1", []byte("1"))
	v, found, _ := sdk.KV.Get("seen/inv-1")
	keys, _ := sdk.KV.List("seen/")
	fmt.Println(string(v), found, keys)
	// Output: 1 true [seen/inv-1]
}

func ExampleHTTPClient_Post() {
	h := sdktest.New()
	h.HTTP = func(r sdk.OutboundRequest) (*sdk.OutboundResponse, error) {
		return &sdk.OutboundResponse{Status: 202}, nil
	}
	resp, err := sdk.HTTP.Post("https://hooks.example.com/x", "application/json", []byte(`{}`))
	fmt.Println(resp.Status, err)
	// Output: 202 <nil>
}

func ExampleLogger_Info() {
	h := sdktest.New()
	sdk.Log.Info("started")
	fmt.Println(h.Logs)
	// Output: [info: started]
}

func ExampleConfig() {
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"percent":10}`)
	var cfg struct {
		Percent int `json:"percent"`
	}
	err := sdk.Config(&cfg)
	fmt.Println(cfg.Percent, err)
	// Output: 10 <nil>
}
