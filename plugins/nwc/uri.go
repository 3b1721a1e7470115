package nwc

import (
	"context"
	"fmt"
	"net/url"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/host"
)

// clientKey makes a connection's client key pair: the secret goes into the
// URI, shown once, and is never stored; the plugin keeps the public key.
func clientKey() (secret, pubkey string, err error) {
	secret = gonostr.GeneratePrivateKey()
	pubkey, err = gonostr.GetPublicKey(secret)
	if err != nil {
		return "", "", fmt.Errorf("making a connection key: %w", err)
	}
	return secret, pubkey, nil
}

// uri is a connection's nostr+walletconnect URI: its wallet key, its
// relays, the client's secret, and the wallet's Lightning Address when it
// has one.
func (p *Plugin) uri(walletPubkey string, relays []string, secret, lud16 string) string {
	q := url.Values{}
	for _, r := range relays {
		q.Add("relay", r)
	}
	q.Set("secret", secret)
	if lud16 != "" {
		q.Set("lud16", lud16)
	}
	return "nostr+walletconnect://" + walletPubkey + "?" + q.Encode()
}

// lud16 is the Lightning Address of the caller's wallet, if it has one.
func (p *Plugin) lud16(ctx context.Context, caller *host.Principal, walletID string) string {
	if caller == nil || caller.WalletID != walletID {
		return ""
	}
	w, err := p.host.ActFor(caller).Wallet(ctx)
	if err != nil || w.LnAddress == nil {
		return ""
	}
	return *w.LnAddress
}
