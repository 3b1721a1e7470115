package nwc

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// WalletAuthRequest asks what an app asks for: its nostr+walletauth URI,
// or the query of its authorization request at /apps/new.
type WalletAuthRequest struct {
	Walletauth    *string `json:"walletauth,omitempty"`
	Authorization *string `json:"authorization,omitempty"`
}

// WalletAuthAsk is what an app's nostr+walletauth URI asks for, as the
// connection would be made of it: what the user sees before approving.
type WalletAuthAsk struct {
	Pubkey   string `json:"pubkey"`
	Name     string `json:"name"`
	Icon     string `json:"icon,omitempty"`
	ReturnTo string `json:"return_to,omitempty"`
	// Methods are those asked for that the wallet serves, with
	// "notifications" when notifications are asked for.
	Methods []string `json:"methods"`
	// Unsupported are the methods and notification types asked for that
	// the wallet does not serve: the connection is made without them.
	Unsupported []string     `json:"unsupported,omitempty"`
	Budget      *budget.Spec `json:"budget,omitempty"`
	ExpiresAt   *time.Time   `json:"expires_at,omitempty"`
	// Relays are the app's relays the service uses (those among the
	// server's); RefusedRelays the others.
	Relays        []string        `json:"relays"`
	RefusedRelays []string        `json:"refused_relays,omitempty"`
	Isolated      bool            `json:"isolated"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	// Refusal says why the connection cannot be made, "" when it can.
	Refusal string `json:"refusal,omitempty"`
}

func (p *Plugin) previewWalletauth(_ context.Context, req *host.BuiltinRequest) (any, error) {
	in := req.Body.(*WalletAuthRequest)
	if len(p.cfg.Relays) == 0 {
		return nil, ErrDisabled
	}
	return p.askOfRequest(in.Walletauth, in.Authorization, req.Caller != nil && req.Caller.Admin)
}

// askOfRequest reads an NWA URI or an authorization request's query (one
// of them) into what it asks of this wallet; an app asking for a wallet of
// its own is served to the admin alone.
func (p *Plugin) askOfRequest(walletauth, authorization *string, admin bool) (*WalletAuthAsk, error) {
	var a *walletAuth
	var err error
	switch {
	case (walletauth == nil) == (authorization == nil):
		return nil, fault.Invalidf("one of walletauth and authorization is required")
	case walletauth != nil:
		a, err = parseWalletAuth(*walletauth)
	default:
		a, err = parseAuthorization(*authorization)
	}
	if err != nil {
		return nil, err
	}
	return p.askOf(a, admin)
}

// askOf is what an app's request asks of this wallet.
func (p *Plugin) askOf(a *walletAuth, admin bool) (*WalletAuthAsk, error) {
	pk, err := appPubkey("walletauth's app key", a.AppPubkey)
	if err != nil {
		return nil, err
	}
	ask := &WalletAuthAsk{Pubkey: pk, Name: strings.TrimSpace(a.Name), Icon: a.Icon, ReturnTo: a.ReturnTo,
		Methods: []string{}, Relays: []string{}, Isolated: a.Isolated, Metadata: a.Metadata, ExpiresAt: expiryOf(a)}
	if ask.Name == "" {
		ask.Name = "App " + pk[:8]
	}
	if ask.Budget, err = budgetOf(a); err != nil {
		return nil, err
	}
	for _, m := range a.RequestMethods {
		if _, ok := methods[m]; ok && m != notifications {
			ask.Methods = append(ask.Methods, m)
		} else {
			ask.Unsupported = append(ask.Unsupported, m)
		}
	}
	notified := false
	for _, n := range a.NotificationTypes {
		if contains(notificationTypes, n) {
			notified = true
		} else {
			ask.Unsupported = append(ask.Unsupported, n)
		}
	}
	if notified {
		ask.Methods = append(ask.Methods, notifications)
	}
	if a.ServerRelays {
		ask.Relays = append(ask.Relays, p.cfg.Relays...)
	}
	for _, r := range a.Relays {
		if mine := p.relayOf(r); mine != "" && !contains(ask.Relays, mine) {
			ask.Relays = append(ask.Relays, mine)
		} else if mine == "" {
			ask.RefusedRelays = append(ask.RefusedRelays, r)
		}
	}
	switch {
	case len(ask.Relays) == 0:
		ask.Refusal = "none of the app's relays (" + strings.Join(a.Relays, ", ") + ") is one of this server's (" +
			strings.Join(p.cfg.Relays, ", ") + ")"
	case len(ask.Methods) == 0:
		ask.Refusal = "the app asks for no method this wallet serves"
	case a.Isolated && !admin:
		ask.Refusal = "the app asks for a wallet of its own (isolated), which only the admin makes"
	}
	return ask, nil
}

// relayOf is the server's relay, or the app relay it follows, that raw
// names; "" for none.
func (p *Plugin) relayOf(raw string) string {
	want := relayKey(raw)
	for _, r := range p.cfg.allRelays() {
		if relayKey(r) == want {
			return r
		}
	}
	return ""
}

// relayKey is a relay URL as compared: scheme and host in lower case, no
// trailing slash, no default port.
func relayKey(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	host := strings.ToLower(u.Host)
	host = strings.TrimSuffix(strings.TrimSuffix(host, ":443"), ":80")
	return strings.ToLower(u.Scheme) + "://" + host + strings.TrimSuffix(u.Path, "/") + "?" + u.RawQuery
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
