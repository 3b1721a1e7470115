//go:build !wasip1

package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/sdk"
	"github.com/hearthwallet/hearth/sdk/sdktest"
)

// placed is what POST /orders answers.
type placed struct {
	OrderID string `json:"order_id"`
	Bolt11  string `json:"bolt11"`
	Token   string `json:"token"`
}

func place(t *testing.T, h *sdktest.Host) placed {
	t.Helper()
	r, err := h.Serve(sdk.Request{Method: "POST", Path: "/orders"})
	if err != nil || r.Status != 201 {
		t.Fatalf("placing an order: %+v %v", r, err)
	}
	var p placed
	if err := json.Unmarshal(r.Body, &p); err != nil || p.OrderID == "" || p.Token == "" {
		t.Fatalf("order %s: %v", r.Body, err)
	}
	return p
}

func confirmWith(t *testing.T, h *sdktest.Host, id, token string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": token})
	r, err := h.Serve(sdk.Request{Method: "POST", Path: "/orders/" + id + "/confirm", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status
}

// An order is confirmed: only once it is paid, only with its token, and
// then the seller's wallet has the money, once.
func TestConfirmReleasesThePayment(t *testing.T) {
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"price_msat":5000,"timeout_seconds":3600}`)
	o := place(t, h)
	if inv := h.Invoice(o.OrderID); inv == nil || !inv.Hold || inv.Status != "Pending" {
		t.Fatalf("the order's invoice: %+v", inv)
	}
	if s := confirmWith(t, h, o.OrderID, o.Token); s != 409 {
		t.Fatalf("confirming before payment: %d", s)
	}
	ev, err := h.HoldPaid(o.OrderID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Deliver(ev); err != nil {
		t.Fatal(err)
	}
	if err := h.Deliver(ev); err != nil { // again: nothing more
		t.Fatal(err)
	}
	if s := confirmWith(t, h, o.OrderID, "not the token"); s != 403 {
		t.Fatalf("a wrong token: %d", s)
	}
	if s := confirmWith(t, h, o.OrderID, o.Token); s != 200 {
		t.Fatalf("confirming: %d", s)
	}
	if s := confirmWith(t, h, o.OrderID, o.Token); s != 200 {
		t.Fatalf("confirming again: %d", s)
	}
	if inv := h.Invoice(o.OrderID); inv.Status != "Settled" || h.Wallet.Balance.AvailableMsat != 5000 {
		t.Fatalf("after confirming: %s, wallet %+v", inv.Status, h.Wallet.Balance)
	}
	// Its time is up, but it is released: the timer leaves it.
	if err := h.Fire("expire", time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if inv := h.Invoice(o.OrderID); inv.Status != "Settled" {
		t.Fatalf("the timer touched a released order: %s", inv.Status)
	}
}

// A paid order not confirmed in time is cancelled by the timer: the
// buyer's payment goes back, and confirming it then is too late.
func TestTimeoutRefunds(t *testing.T) {
	h := sdktest.New()
	h.ConfigJSON = []byte(`{"price_msat":3000,"timeout_seconds":600}`)
	late, early := place(t, h), place(t, h)
	for _, o := range []placed{late, early} {
		ev, err := h.HoldPaid(o.OrderID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Deliver(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Fire("expire", time.Now().Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if inv := h.Invoice(late.OrderID); inv.Status != "Accepted" {
		t.Fatalf("cancelled before its time: %s", inv.Status)
	}
	if err := h.Fire("expire", time.Now().Add(11*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if inv := h.Invoice(late.OrderID); inv.Status != "Cancelled" {
		t.Fatalf("after the timeout: %s", inv.Status)
	}
	if s := confirmWith(t, h, late.OrderID, late.Token); s != 409 {
		t.Fatalf("confirming a refunded order: %d", s)
	}
	if h.Wallet.Balance.AvailableMsat != 0 {
		t.Fatalf("the seller has %+v", h.Wallet.Balance)
	}
}
