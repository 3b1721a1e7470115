package nwc

import (
	"context"
	"strings"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// pairing is what a new connection is made of, however it was asked for:
// a name and methods (a URI with a secret made here), the app's own key
// (pubkey), or a nostr+walletauth URI.
type pairing struct {
	name      string
	methods   []string
	budget    *budget.Spec
	expiresAt *time.Time
	// appPubkey is the app's own key; "" makes a client key whose secret
	// goes into the answer's URI, once.
	appPubkey string
	// relays the connection is paired on; nil for every relay of the
	// server.
	relays []string
}

// pair makes a connection: its delegation (within the caller's
// permissions), its client key (the app's, or one made here), its own
// wallet key, and, on this replica when it serves the relays, its
// subscription and info event before the answer, so that the app's first
// request is heard.
func (p *Plugin) pair(ctx context.Context, caller *host.Principal, walletID string, in pairing) (*Connection, error) {
	ms, perms, err := methodsOf(in.methods)
	if err != nil {
		return nil, err
	}
	d, err := p.host.ActFor(caller).Delegate(ctx, host.NewDelegation{Name: "nwc: " + in.name,
		Permissions: perms, Budget: in.budget, ExpiresAt: in.expiresAt, WalletID: walletID})
	if err != nil {
		return nil, err
	}
	secret, pubkey := "", in.appPubkey
	if pubkey == "" {
		if secret, pubkey, err = clientKey(); err != nil {
			return nil, err
		}
	}
	_, walletPub, err := p.walletKey(d.ID)
	if err != nil {
		return nil, err
	}
	row := &connRow{ID: d.ID, WalletID: d.WalletID, UserID: d.UserID, Name: in.name, Pubkey: pubkey,
		WalletPubkey: &walletPub, Relays: strings.Join(in.relays, " "), Methods: strings.Join(ms, " "), CreatedAt: d.CreatedAt}
	if err := p.insertConnection(ctx, row); err != nil {
		_ = p.host.RevokeDelegation(context.WithoutCancel(ctx), d.ID)
		return nil, err
	}
	c := p.present(row, d)
	c.Lud16 = p.lud16(ctx, caller, d.WalletID)
	if secret != "" {
		c.URI = p.uri(walletPub, c.Relays, secret, c.Lud16)
	}
	p.relays.follow(ctx)
	return c, nil
}

// appPubkey checks an app's key: 64 hex characters of a point of the
// curve, lowercase as Nostr writes keys.
func appPubkey(field, raw string) (string, error) {
	if len(raw) != 64 || strings.ToLower(raw) != raw || !gonostr.IsValidPublicKey(raw) {
		return "", fault.Invalidf("%s must be the app's public key: 64 lowercase hex characters of a secp256k1 x coordinate", field)
	}
	return raw, nil
}

// relaysOf are the relays of conn: those it was paired on, or every
// relay of the server.
func (p *Plugin) relaysOf(conn *connRow) []string {
	if conn.Relays == "" {
		return p.cfg.Relays
	}
	return strings.Fields(conn.Relays)
}
