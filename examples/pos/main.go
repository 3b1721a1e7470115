// Command pos is a Hearth plugin that gives every merchant a point of
// sale: a public page with a keypad in the merchant's currency, optional
// tip percentages and items, that makes an invoice into the merchant's
// wallet, shows its QR code and turns to Paid once it is paid. The page
// can only ask for money: it makes invoices and reads the status of the
// ones it made, never spends, never shows a balance or a past sale, so a
// merchant may leave it open on a shared tablet.
//
//	PUT  /v1/plugins/pos/me                  {title, currency, tips, items}: open (or change) the caller's shop
//	GET  /v1/plugins/pos/me                  the caller's shop and its page
//	GET  /v1/plugins/pos/s/{user}            the shop's page (public)
//	GET  /v1/plugins/pos/s/{user}/shop       the shop's title, currency, tips, items and rate (public)
//	POST /v1/plugins/pos/s/{user}/sale       {amount, tip_percent}: a sale's invoice (public)
//	GET  /v1/plugins/pos/s/{user}/sale/{id}  the sale's status (public)
//	GET  /v1/plugins/pos/s/{user}/sale/{id}/qr.svg  its invoice as a QR code (public)
//	GET  /v1/plugins/pos/assets/{file}       the page's script and style
//
// Its scopes: write:transaction and wallet:receive-any to make a sale's
// invoice in the shop's wallet (tagged as the plugin's), read:transaction
// and wallet:read-any to read back the invoices it made, caller:act for a
// merchant's own shop, and rates:read for the price of a bitcoin in the
// shop's currency. Hearth serves its page sandboxed (host.PageCSP): the
// page's calls are cross-origin, so the public routes allow any origin,
// and its posts are text/plain, which needs no preflight.
package main

import (
	"encoding/json"
	"strings"

	"github.com/hearthwallet/hearth/sdk"
)

// shop is one merchant's point of sale, kept under "shop/<user id>".
type shop struct {
	UserID   string `json:"user_id"`
	WalletID string `json:"wallet_id"`
	Title    string `json:"title"`
	Currency string `json:"currency"`
	// Tips are the tip percentages offered, e.g. [10, 15, 20].
	Tips  []int  `json:"tips"`
	Items []item `json:"items"`
}

// item is something the shop sells, at a price in its currency.
type item struct {
	Name  string `json:"name"`
	Price string `json:"price"`
}

// name is the plugin's name (manifest.json): Hearth tags every invoice the
// plugin makes with it, and the sales are those tagged "sale".
const (
	name    = "pos"
	saleTag = "sale"
)

func serve(r *sdk.Request) *sdk.Response {
	switch {
	case r.Path == "/me" && r.Method == "PUT":
		return open(r)
	case r.Path == "/me" && r.Method == "GET":
		return mine(r)
	case strings.HasPrefix(r.Path, "/assets/") && r.Method == "GET":
		return asset(strings.TrimPrefix(r.Path, "/assets/"))
	case strings.HasPrefix(r.Path, "/s/"):
		user, rest, _ := strings.Cut(strings.TrimPrefix(r.Path, "/s/"), "/")
		s, err := load(user)
		switch {
		case err != nil:
			return public(fail(503, "try again"))
		case s == nil:
			return public(fail(404, "no such shop"))
		}
		return public(serveShop(r, s, rest))
	}
	return fail(404, "not found")
}

// serveShop answers the public routes of shop s; rest is the path after
// /s/{user}/.
func serveShop(r *sdk.Request, s *shop, rest string) *sdk.Response {
	switch {
	case rest == "" && r.Method == "GET":
		return page()
	case rest == "shop" && r.Method == "GET":
		return shopInfo(s)
	case rest == "sale" && r.Method == "POST":
		return sell(r, s)
	case strings.HasPrefix(rest, "sale/") && r.Method == "GET":
		id, qr := strings.CutSuffix(strings.TrimPrefix(rest, "sale/"), "/qr.svg")
		if qr {
			return saleQR(s, id)
		}
		return saleStatus(s, id)
	}
	return fail(404, "not found")
}

// open makes or changes the caller's shop, paid into the caller's wallet.
func open(r *sdk.Request) *sdk.Response {
	if r.Caller == nil {
		return fail(401, "sign in first")
	}
	var in struct {
		Title    string `json:"title"`
		Currency string `json:"currency"`
		Tips     []int  `json:"tips"`
		Items    []item `json:"items"`
	}
	if err := json.Unmarshal(r.Body, &in); err != nil {
		return fail(400, "a JSON body: {title, currency, tips, items}")
	}
	s := shop{UserID: r.Caller.UserID, WalletID: r.Caller.WalletID, Title: strings.TrimSpace(in.Title),
		Currency: strings.ToUpper(strings.TrimSpace(in.Currency)), Tips: in.Tips, Items: in.Items}
	if msg := s.check(); msg != "" {
		return fail(400, msg)
	}
	if _, err := sdk.Rate(s.Currency); err != nil {
		return fail(422, "this instance has no rate for "+s.Currency+": "+err.Error())
	}
	b, _ := json.Marshal(s)
	if err := sdk.KV.Set("shop/"+s.UserID, b); err != nil {
		return fail(503, "could not save the shop")
	}
	return sdk.JSON(200, s.record())
}

// mine answers the caller's own shop.
func mine(r *sdk.Request) *sdk.Response {
	if r.Caller == nil {
		return fail(401, "sign in first")
	}
	s, err := load(r.Caller.UserID)
	switch {
	case err != nil:
		return fail(503, "try again")
	case s == nil:
		return fail(404, "no shop yet: PUT /me opens one")
	}
	return sdk.JSON(200, s.record())
}

// record is a shop as its owner reads it, with its page's path.
func (s *shop) record() map[string]any {
	return map[string]any{"title": s.Title, "currency": s.Currency, "tips": s.Tips, "items": s.Items,
		"wallet_id": s.WalletID, "page": "/v1/plugins/" + name + "/s/" + s.UserID}
}

// check says what is wrong with s, or "".
func (s *shop) check() string {
	switch {
	case s.Title == "" || len(s.Title) > 80:
		return "title: 1 to 80 characters"
	case len(s.Currency) != 3:
		return "currency: a three-letter code, e.g. USD"
	case len(s.Tips) > 4:
		return "tips: at most four percentages"
	case len(s.Items) > 24:
		return "items: at most 24"
	}
	for _, t := range s.Tips {
		if t < 1 || t > 100 {
			return "tips: percentages between 1 and 100"
		}
	}
	for _, it := range s.Items {
		if strings.TrimSpace(it.Name) == "" || len(it.Name) > 40 {
			return "items: each a name of 1 to 40 characters"
		}
		if _, err := parseAmount(it.Price, s.Currency); err != nil {
			return "items: " + it.Name + "'s price: " + err.Error()
		}
	}
	return ""
}

// load reads user's shop; nil when there is none.
func load(user string) (*shop, error) {
	if user == "" || len(user) > 128 {
		return nil, nil
	}
	b, ok, err := sdk.KV.Get("shop/" + user)
	if err != nil || !ok {
		return nil, err
	}
	var s shop
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// public lets the shop's page, which Hearth serves in an origin of its
// own, read the answer.
func public(resp *sdk.Response) *sdk.Response {
	if resp.Headers == nil {
		resp.Headers = map[string]string{}
	}
	resp.Headers["Access-Control-Allow-Origin"] = "*"
	return resp
}

func fail(status int, msg string) *sdk.Response {
	return sdk.JSON(status, map[string]string{"error": msg})
}

func main() {}

func init() { sdk.HandleHTTP(serve) }
