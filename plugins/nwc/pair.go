package nwc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/wallet"
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
	// isolated makes the connection a wallet of its own (the admin's
	// sub-wallet) instead of connecting an existing one.
	isolated bool
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
	if in.isolated {
		if walletID != "" {
			return nil, ErrInvalid.Reasonf("isolated makes a wallet of its own: leave wallet_id out")
		}
		w, err := p.subWallet(ctx, caller, in.name)
		if err != nil {
			return nil, err
		}
		walletID = w.ID
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

// subWallet makes the wallet of its own that an isolated connection uses:
// a new user (app-<12 hex>) with a wallet labelled by the connection's
// name, made by the host for the admin caller (wallet:create).
func (p *Plugin) subWallet(ctx context.Context, caller *host.Principal, name string) (*wallet.Wallet, error) {
	if caller == nil || !caller.Admin {
		return nil, ErrInvalid.Reasonf("only the admin makes a wallet of its own for an app (isolated)")
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("naming a sub-wallet: %w", err)
	}
	label := name
	w, err := p.host.ActFor(caller).CreateWallet(ctx, "app-"+hex.EncodeToString(b[:]), &label)
	if err != nil {
		return nil, fmt.Errorf("making a sub-wallet: %w", err)
	}
	return w, nil
}
