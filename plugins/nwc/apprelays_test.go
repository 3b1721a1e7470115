package nwc_test

import (
	"net/http"
	"slices"
	"testing"

	gonostr "github.com/nbd-wtf/go-nostr"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestFollowedAppRelays: an app that names a relay the operator follows
// ([nwc] follow_app_relays), not one of the server's relays, is paired on
// it: its info event is published there and its requests are answered
// there; a relay in neither list is still refused.
func TestFollowedAppRelays(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	appRelay := nostrtest.StartRelay(t)
	k := newKit(t, e, func(c *nwc.Config) { c.AppRelays = []string{appRelay.URL()} })
	alice, _ := k.user("alice", 21_000, auth.AllScopes)
	secret, pub := appKey(t)

	uri := "nostr+walletauth://" + pub + "?relay=" + appRelay.URL() + "&request_methods=get_balance&name=Follower"
	r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"walletauth": uri})
	if r.Code != http.StatusCreated {
		t.Fatalf("an app on a followed relay: %d %s", r.Code, r.Body)
	}
	var c nwc.Connection
	r.decode(t, &c)
	if !slices.Equal(c.Relays, []string{appRelay.URL()}) {
		t.Fatalf("the connection's relays %v, want the app's %s", c.Relays, appRelay.URL())
	}
	e.Eventually("the info event on the app's relay", func() bool {
		return len(appRelay.Stored(gonostr.Filter{Kinds: []int{13194}, Authors: []string{c.WalletPubkey}})) == 1
	})
	if n := len(k.relay.Stored(gonostr.Filter{Kinds: []int{13194}, Authors: []string{c.WalletPubkey}})); n != 0 {
		t.Fatalf("the info event is on the server's relay too (%d)", n)
	}
	app := nostrtest.Connect(t, "nostr+walletconnect://"+c.WalletPubkey+"?relay="+appRelay.URL()+"&secret="+secret)
	var bal struct{ Balance int64 }
	app.Call("get_balance", nil).Decode(t, &bal)
	if bal.Balance != 21_000 {
		t.Fatalf("get_balance on the app's relay: %d", bal.Balance)
	}

	elsewhere := "nostr+walletauth://" + pub + "?relay=wss://elsewhere.example&request_methods=get_balance"
	if r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"walletauth": elsewhere}); r.Code != http.StatusUnprocessableEntity {
		t.Fatalf("an app on a relay in neither list: %d %s", r.Code, r.Body)
	}
}
