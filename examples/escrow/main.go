// Command escrow is a Hearth plugin that holds a buyer's payment until
// the order is done. POST /orders makes an order: a hold invoice of the
// price into the seller's wallet (the plugin's), for a preimage the plugin
// draws and keeps, and a token the buyer keeps. Paid, the invoice is
// Accepted and the money held: the seller delivers. The buyer's POST
// /orders/{id}/confirm with the token settles the invoice (the seller is
// paid); an order not confirmed within timeout_seconds of its payment is
// cancelled by a timer (the buyer is paid back), as it is when the host
// cancels it first.
package main

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/sdk"
)

// config is the plugin's configuration (see manifest.json).
type config struct {
	PriceMsat      int64  `json:"price_msat"`
	Item           string `json:"item"`
	TimeoutSeconds int64  `json:"timeout_seconds"`
}

// The states of an order.
const (
	awaitingPayment = "awaiting_payment"
	held            = "held"
	released        = "released" // settled: the seller is paid
	refunded        = "refunded" // cancelled: the buyer is paid back
)

// order is what the store keeps of one, under "order/<id>" (the id is its
// invoice's); "held/<id>" marks the held ones for the timer.
type order struct {
	ID        string     `json:"id"`
	Bolt11    string     `json:"bolt11"`
	Preimage  string     `json:"preimage"`
	TokenHash string     `json:"token_hash"`
	State     string     `json:"state"`
	HeldUntil *time.Time `json:"held_until,omitempty"`
}

func init() {
	sdk.OnEvent(sdk.InvoiceAccepted, onAccepted)
	sdk.OnEvent(sdk.InvoiceCancelled, onCancelled)
	sdk.OnTimer("expire", onExpire)
	sdk.HandleHTTP(serve)
}

func main() {}

// onAccepted holds a paid order until it is confirmed, or for the
// timeout.
func onAccepted(e sdk.Event) error {
	o, found, err := load(e.ID())
	if err != nil || !found || o.State != awaitingPayment {
		return err // not this plugin's order, or seen before
	}
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return err
	}
	until := e.At.Add(time.Duration(cfg.TimeoutSeconds) * time.Second)
	o.State, o.HeldUntil = held, &until
	if err := save(o); err != nil {
		return err
	}
	return sdk.KV.Set("held/"+o.ID, []byte{1})
}

// onCancelled records an order the host cancelled (not settled by its
// deadline) as refunded.
func onCancelled(e sdk.Event) error {
	o, found, err := load(e.ID())
	if err != nil || !found || o.State == refunded {
		return err
	}
	return finish(o, refunded)
}

// onExpire cancels the held orders whose time is up at t.
func onExpire(t sdk.Timer) error {
	var due []string
	if err := sdk.KV.Keys("held/", func(k string) bool { due = append(due, strings.TrimPrefix(k, "held/")); return true }); err != nil {
		return err
	}
	for _, id := range due {
		o, found, err := load(id)
		if err != nil {
			return err
		}
		if !found || o.State != held || o.HeldUntil == nil || o.HeldUntil.After(t.DueAt) {
			continue
		}
		if _, err := sdk.CancelHoldInvoice(o.ID); err != nil {
			return err
		}
		if err := finish(o, refunded); err != nil {
			return err
		}
	}
	return nil
}

// finish records o's end.
func finish(o *order, state string) error {
	o.State = state
	if err := save(o); err != nil {
		return err
	}
	return sdk.KV.Delete("held/" + o.ID)
}

func serve(r *sdk.Request) *sdk.Response {
	rest, ok := strings.CutPrefix(r.Path, "/orders")
	switch {
	case !ok:
	case r.Method == "POST" && rest == "":
		return create()
	case r.Method == "GET" && strings.HasPrefix(rest, "/"):
		return show(rest[1:])
	case r.Method == "POST" && strings.HasPrefix(rest, "/") && strings.HasSuffix(rest, "/confirm"):
		return confirm(strings.TrimSuffix(rest[1:], "/confirm"), r.Body)
	}
	return sdk.JSON(404, map[string]string{"error": "not found"})
}

// create makes an order: a hold invoice for a fresh preimage, and the
// buyer's token.
func create() *sdk.Response {
	var cfg config
	if err := sdk.Config(&cfg); err != nil || cfg.PriceMsat <= 0 {
		return sdk.JSON(500, map[string]string{"error": "the plugin is not configured"})
	}
	preimage, token := random(), random()
	hash := sha256.Sum256(must(hex.DecodeString(preimage)))
	inv, err := sdk.CreateHoldInvoice(sdk.NewHoldInvoice{PaymentHash: hex.EncodeToString(hash[:]),
		NewInvoice: sdk.NewInvoice{AmountMsat: cfg.PriceMsat, Description: cfg.Item, Expiry: 3600}})
	if err != nil {
		sdk.Log.Error("creating a hold invoice: " + err.Error())
		return sdk.JSON(503, map[string]string{"error": "cannot take an order now"})
	}
	o := &order{ID: inv.ID, Bolt11: inv.Bolt11(), Preimage: preimage, TokenHash: tokenHash(token), State: awaitingPayment}
	if err := save(o); err != nil {
		return sdk.JSON(503, map[string]string{"error": "cannot record the order"})
	}
	return sdk.JSON(201, map[string]any{"order_id": o.ID, "bolt11": o.Bolt11, "amount_msat": cfg.PriceMsat, "token": token})
}

// show answers an order's state.
func show(id string) *sdk.Response {
	o, found, err := load(id)
	switch {
	case err != nil:
		return sdk.JSON(503, map[string]string{"error": "try again"})
	case !found:
		return sdk.JSON(404, map[string]string{"error": "unknown order"})
	}
	out := map[string]any{"order_id": o.ID, "state": o.State, "bolt11": o.Bolt11}
	if o.HeldUntil != nil {
		out["held_until"] = o.HeldUntil
	}
	return sdk.JSON(200, out)
}

// confirm settles a held order for the buyer who holds its token.
func confirm(id string, body []byte) *sdk.Response {
	var in struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Token == "" {
		return sdk.JSON(400, map[string]string{"error": `the body is {"token": "…"}`})
	}
	o, found, err := load(id)
	switch {
	case err != nil:
		return sdk.JSON(503, map[string]string{"error": "try again"})
	case !found:
		return sdk.JSON(404, map[string]string{"error": "unknown order"})
	case subtle.ConstantTimeCompare([]byte(tokenHash(in.Token)), []byte(o.TokenHash)) != 1:
		return sdk.JSON(403, map[string]string{"error": "wrong token"})
	case o.State == released:
		return sdk.JSON(200, map[string]string{"order_id": o.ID, "state": o.State})
	case o.State != held:
		return sdk.JSON(409, map[string]string{"error": "the order is " + o.State, "state": o.State})
	}
	if _, err := sdk.SettleHoldInvoice(o.ID, o.Preimage); err != nil {
		sdk.Log.Error("settling order " + o.ID + ": " + err.Error())
		return sdk.JSON(409, map[string]string{"error": "the payment could not be released: " + err.Error()})
	}
	if err := finish(o, released); err != nil {
		return sdk.JSON(503, map[string]string{"error": "released; recording it failed"})
	}
	return sdk.JSON(200, map[string]string{"order_id": o.ID, "state": o.State})
}

func load(id string) (*order, bool, error) {
	b, found, err := sdk.KV.Get("order/" + id)
	if err != nil || !found {
		return nil, false, err
	}
	o := new(order)
	return o, true, json.Unmarshal(b, o)
}

func save(o *order) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return sdk.KV.Set("order/"+o.ID, b)
}

// random is 32 random bytes, hex.
func random() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the sandbox's randomness is the host's: it does not fail
	}
	return hex.EncodeToString(b[:])
}

// tokenHash is what the store keeps of a buyer's token.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte("escrow token:" + token))
	return hex.EncodeToString(sum[:])
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
