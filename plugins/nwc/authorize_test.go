package nwc_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
)

// TestAuthorizationRequest reads the query of an authorization request at
// /apps/new as @getalby/sdk's getAuthorizationUrl builds it: the app names
// no relay and gets the server's; naming no methods, it asks for all of
// them and their notifications; the connection is made for its own key.
func TestAuthorizationRequest(t *testing.T) {
	e := plugintest.SQLite(t, plugintest.Options{AllowPrivate: true})
	k := newKit(t, e, nil)
	alice, _ := k.user("alice", 0, auth.AllScopes)
	_, pub := appKey(t)

	var ask nwc.WalletAuthAsk
	r := k.do(alice, "POST", "/v1/me/nwc/walletauth", map[string]any{"authorization": "name=Everything&pubkey=" + pub})
	r.decode(t, &ask)
	all := []string{"cancel_hold_invoice", "get_balance", "get_budget", "get_info", "list_transactions", "lookup_invoice", "make_hold_invoice",
		"make_invoice", "multi_pay_invoice", "multi_pay_keysend", "pay_invoice", "pay_keysend", "settle_hold_invoice", "notifications"}
	if r.Code != http.StatusOK || ask.Pubkey != pub || ask.Name != "Everything" || !slices.Equal(ask.Methods, all) ||
		len(ask.Unsupported) != 0 || ask.Budget != nil || !slices.Equal(ask.Relays, []string{k.relay.URL()}) || ask.Refusal != "" {
		t.Fatalf("an app that names no methods: %d %s", r.Code, r.Body)
	}

	month := time.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
	q := url.Values{"name": {"Shop"}, "pubkey": {pub}, "request_methods": {"get_balance pay_invoice"}, "max_amount": {"21"},
		"budget_renewal": {"daily"}, "expires_at": {strconv.FormatInt(month.Unix(), 10)}, "return_to": {"https://shop.example/done"}}
	r = k.do(alice, "POST", "/v1/me/nwc/walletauth", map[string]any{"authorization": "?" + q.Encode()})
	r.decode(t, &ask)
	if r.Code != http.StatusOK || strings.Join(ask.Methods, " ") != "get_balance pay_invoice" || ask.Budget == nil ||
		ask.Budget.MaxMsat != 21_000 || ask.Budget.Renewal != "daily" || ask.ExpiresAt == nil || !ask.ExpiresAt.Equal(month) ||
		ask.ReturnTo != "https://shop.example/done" {
		t.Fatalf("an app's request: %d %s", r.Code, r.Body)
	}

	r = k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"authorization": q.Encode()})
	var c nwc.Connection
	r.decode(t, &c)
	if r.Code != http.StatusCreated || c.URI != "" || c.Pubkey != pub || c.Name != "Shop" || c.Budget == nil ||
		c.Budget.MaxMsat != 21_000 || !slices.Equal(c.Relays, []string{k.relay.URL()}) || c.WalletPubkey == "" {
		t.Fatalf("the connection: %d %s", r.Code, r.Body)
	}

	for _, body := range []map[string]any{
		{},
		{"authorization": q.Encode(), "walletauth": "nostr+walletauth://" + pub + "?request_methods=get_info"},
		{"authorization": "name=NoKey"},
		{"authorization": "pubkey=" + pub + "&max_amount=lots"},
	} {
		r := k.do(alice, "POST", "/v1/me/nwc/walletauth", body)
		if r.Code != http.StatusBadRequest {
			t.Fatalf("%v: %d %s", body, r.Code, r.Body)
		}
	}
}
