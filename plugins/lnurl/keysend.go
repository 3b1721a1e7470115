package lnurl

import (
	"context"
	"net/http"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// Keysend addresses: /.well-known/keysend/<username> answers Podcast
// Index's keysend address of a Lightning Address that allows it — the
// node's key, and the value of custom record 696969 that names the
// address's wallet (core/ledger/keysendreceive.go), read through the host
// (keysend:read). An address allows it when its owner says so
// (allows_keysend, false by default): the answer names the node behind
// the address, which a payer of invoices learns only when paying.

// KeysendParams is the keysend address as Podcast Index apps read it.
type KeysendParams struct {
	Status     string       `json:"status"`
	Tag        string       `json:"tag"`
	Pubkey     string       `json:"pubkey"`
	CustomData []CustomData `json:"customData"`
}

// CustomData is a custom record the payer sends: its type, in decimal,
// and its value, as text.
type CustomData struct {
	CustomKey   string `json:"customKey"`
	CustomValue string `json:"customValue"`
}

// errNoKeysend is an address that does not allow keysend: as unknown.
var errNoKeysend = fault.New(fault.NotFound, "not_found", "Unknown keysend address")

// keysendRoute is the public route of the keysend address.
func (p *Plugin) keysendRoute(lim *host.RateLimit) host.BuiltinRoute {
	return host.BuiltinRoute{Method: "GET", Path: "/.well-known/keysend/{username}", Access: host.Public, Status: http.StatusOK,
		Summary: "Podcast Index keysend address of a Lightning Address that allows keysend: the node's key and record 696969 naming its wallet; 404 {status:ERROR} otherwise",
		Resp:    KeysendParams{}, AnyOrigin: true, ErrorBody: errorBody, Limit: lim, Handle: p.keysendAddress}
}

func (p *Plugin) keysendAddress(ctx context.Context, req *host.BuiltinRequest) (any, error) {
	a, err := p.address(ctx, req)
	if err != nil {
		if err == errUnknown {
			return nil, errNoKeysend
		}
		return nil, err
	}
	if !a.AllowsKeysend {
		return nil, errNoKeysend
	}
	ks, err := p.host.KeysendAddress(ctx, a.WalletID)
	if err != nil {
		return nil, err
	}
	return &KeysendParams{Status: "OK", Tag: "keysend", Pubkey: ks.Pubkey,
		CustomData: []CustomData{{CustomKey: ks.CustomKey, CustomValue: ks.CustomValue}}}, nil
}
