// Command tipjar is a Hearth plugin that gives every user a tip jar of
// their own, in their own wallet: the ABI hearth_v2 tells an
// authenticated route who calls it, and, with the capability caller:act,
// the plugin's calls act for that caller.
//
//	PUT  /v1/plugins/tipjar/me              {"title": …}: open (or rename) the caller's jar
//	GET  /v1/plugins/tipjar/me              the caller's jar and the tips it received
//	GET  /v1/plugins/tipjar/u/{user}        a jar's page (public)
//	POST /v1/plugins/tipjar/u/{user}/tip    {"amount_msat": …, "note": …}: an invoice into
//	                                        that user's wallet (public)
//
// Its scopes: write:transaction and wallet:receive-any to make a tip's
// invoice in its jar's wallet, read:transaction and caller:act to list a
// caller's own tips. It is bound to no wallet.
package main

import (
	"encoding/json"
	"strings"

	"github.com/hearthwallet/hearth/sdk"
)

// jar is one user's jar, kept under "jar/<user id>".
type jar struct {
	UserID   string `json:"user_id"`
	WalletID string `json:"wallet_id"`
	Title    string `json:"title"`
}

// tipPrefix starts the description of every tip's invoice, which is what
// the payer's wallet shows.
const tipPrefix = "Tip: "

// name is the plugin's name (manifest.json), which Hearth writes on the
// tag of every invoice the plugin makes; tipTag is the tag's value on a
// tip's. The owner's list finds the tips among the wallet's invoices by
// them: no other plugin, and no user, can make an invoice with this tag.
const (
	name   = "tipjar"
	tipTag = "tip"
)

func serve(r *sdk.Request) *sdk.Response {
	switch {
	case r.Path == "/me" && r.Method == "PUT":
		return open(r)
	case r.Path == "/me" && r.Method == "GET":
		return mine(r)
	case strings.HasPrefix(r.Path, "/u/"):
		user, rest, _ := strings.Cut(strings.TrimPrefix(r.Path, "/u/"), "/")
		j, err := load(user)
		switch {
		case err != nil:
			return fail(503, "try again")
		case j == nil:
			return fail(404, "no such tip jar")
		case rest == "" && r.Method == "GET":
			return sdk.JSON(200, map[string]string{"user_id": j.UserID, "title": j.Title})
		case rest == "tip" && r.Method == "POST":
			return tip(r, j)
		}
	}
	return fail(404, "not found")
}

// open makes or renames the caller's jar, paid into the caller's wallet.
func open(r *sdk.Request) *sdk.Response {
	if r.Caller == nil {
		return fail(401, "sign in first")
	}
	var in struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(r.Body, &in); err != nil || strings.TrimSpace(in.Title) == "" || len(in.Title) > 100 {
		return fail(400, "title: 1 to 100 characters")
	}
	j := jar{UserID: r.Caller.UserID, WalletID: r.Caller.WalletID, Title: strings.TrimSpace(in.Title)}
	b, _ := json.Marshal(j)
	if err := sdk.KV.Set("jar/"+j.UserID, b); err != nil {
		return fail(503, "cannot keep the jar now")
	}
	return sdk.JSON(200, map[string]string{"user_id": j.UserID, "title": j.Title, "page": "/v1/plugins/tipjar/u/" + j.UserID})
}

// mine lists the caller's tips: the host's invoices call acts for the
// caller (caller:act), so it reads the caller's wallet and no other.
func mine(r *sdk.Request) *sdk.Response {
	if r.Caller == nil {
		return fail(401, "sign in first")
	}
	j, err := load(r.Caller.UserID)
	if err != nil {
		return fail(503, "try again")
	}
	if j == nil {
		return fail(404, "open your tip jar first (PUT /me)")
	}
	invs, err := sdk.Invoices(sdk.ListFilter{Limit: 1000})
	if err != nil {
		return fail(503, "cannot read your invoices: "+err.Error())
	}
	type tipOut struct {
		ID         string `json:"id"`
		AmountMsat int64  `json:"amount_msat"`
		Status     string `json:"status"`
		Note       string `json:"note"`
	}
	tips := []tipOut{}
	var received int64
	for _, inv := range invs {
		if inv.Tag == nil || *inv.Tag != (sdk.Tag{Plugin: name, Value: tipTag}) || inv.Description == nil || inv.AmountMsat == nil {
			continue
		}
		tips = append(tips, tipOut{ID: inv.ID, AmountMsat: *inv.AmountMsat, Status: inv.Status, Note: strings.TrimPrefix(*inv.Description, tipPrefix)})
		if inv.Status == "Settled" {
			received += *inv.AmountMsat
		}
	}
	return sdk.JSON(200, map[string]any{"user_id": j.UserID, "title": j.Title, "wallet_id": r.Caller.WalletID,
		"received_msat": received, "tips": tips})
}

// tip makes an invoice into the jar's wallet (wallet:receive-any).
func tip(r *sdk.Request, j *jar) *sdk.Response {
	var in struct {
		AmountMsat int64  `json:"amount_msat"`
		Note       string `json:"note"`
	}
	if err := json.Unmarshal(r.Body, &in); err != nil || in.AmountMsat < 1000 || in.AmountMsat > 100_000_000 || len(in.Note) > 200 {
		return fail(400, "amount_msat: 1000 to 100000000; note: up to 200 characters")
	}
	inv, err := sdk.Receive(j.WalletID, sdk.NewInvoice{AmountMsat: in.AmountMsat, Description: tipPrefix + in.Note, Expiry: 3600, Tag: tipTag})
	if err != nil {
		sdk.Log.Error("making a tip's invoice: " + err.Error())
		return fail(503, "cannot make an invoice now")
	}
	return sdk.JSON(201, map[string]any{"invoice_id": inv.ID, "bolt11": inv.Bolt11(), "amount_msat": in.AmountMsat})
}

// load reads user's jar; nil when there is none.
func load(user string) (*jar, error) {
	b, found, err := sdk.KV.Get("jar/" + user)
	if err != nil || !found {
		return nil, err
	}
	j := new(jar)
	return j, json.Unmarshal(b, j)
}

func fail(status int, msg string) *sdk.Response {
	return sdk.JSON(status, map[string]string{"error": msg})
}

func init() { sdk.HandleHTTP(serve) }

func main() {}
