package nwc_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugins/nwc"
	"github.com/hearthwallet/hearth/plugintest"
	"github.com/hearthwallet/hearth/testkit/nostrtest"
)

// TestSubWallet: the admin connects an app to a wallet of its own in one
// step ("isolated"): a new wallet, labelled with the app's name, whose
// balance is what the app sees and spends; paid into by another wallet,
// it holds exactly that. Another user is refused, as is an app's request
// for a wallet of its own read by that user; the admin's preview of the
// same request serves it.
func TestSubWallet(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, aliceW := k.user("alice", 50_000, auth.AllScopes)
		admin, err := k.tokens.Issue(auth.AdminUserID, auth.AllScopes)
		if err != nil {
			t.Fatal(err)
		}
		r := k.do(admin, "POST", "/v1/nwc/connections", map[string]any{"name": "Game", "isolated": true,
			"budget": map[string]any{"max_msat": 20_000, "renewal": "daily"}})
		if r.Code != http.StatusCreated {
			t.Fatalf("the admin's sub-wallet: %d %s", r.Code, r.Body)
		}
		var c nwc.Connection
		r.decode(t, &c)
		w, err := e.Wallets.Get(context.Background(), c.WalletID)
		if err != nil || !strings.HasPrefix(w.UserID, "app-") || w.Label == nil || *w.Label != "Game" || c.WalletID == aliceW.ID {
			t.Fatalf("the connection's wallet %+v (%v), the connection %+v", w, err, c)
		}
		app := nostrtest.Connect(t, c.URI)
		var made struct{ Invoice string }
		app.Call("make_invoice", map[string]any{"amount": 12_000}).Decode(t, &made)
		_, a := k.connect(alice, map[string]any{"name": "alice's app"})
		if r := a.Call("pay_invoice", map[string]any{"invoice": made.Invoice}); r.Code() != "" {
			t.Fatalf("alice pays the game: %+v", r)
		}
		var bal struct{ Balance int64 }
		app.Call("get_balance", nil).Decode(t, &bal)
		if bal.Balance != 12_000 || e.Balance(c.WalletID).AvailableMsat != 12_000 || e.Balance(aliceW.ID).AvailableMsat != 38_000 {
			t.Fatalf("the game sees %d; its wallet holds %d, alice's %d", bal.Balance,
				e.Balance(c.WalletID).AvailableMsat, e.Balance(aliceW.ID).AvailableMsat)
		}

		if r := k.do(alice, "POST", "/v1/me/nwc/connections", map[string]any{"name": "mine", "isolated": true}); r.Code != http.StatusUnprocessableEntity ||
			!strings.Contains(string(r.Body), "only the admin") {
			t.Fatalf("alice's sub-wallet: %d %s", r.Code, r.Body)
		}
		_, pub := appKey(t)
		asks := map[string]any{"authorization": "name=Arcade&isolated=true&pubkey=" + pub}
		var ask nwc.WalletAuthAsk
		k.do(alice, "POST", "/v1/me/nwc/walletauth", asks).decode(t, &ask)
		if !ask.Isolated || !strings.Contains(ask.Refusal, "only the admin") {
			t.Fatalf("alice reads an app's request for a wallet of its own: %+v", ask)
		}
		var adminAsk nwc.WalletAuthAsk
		k.do(admin, "POST", "/v1/me/nwc/walletauth", asks).decode(t, &adminAsk)
		if !adminAsk.Isolated || adminAsk.Refusal != "" {
			t.Fatalf("the admin reads it: %+v", adminAsk)
		}
		r = k.do(admin, "POST", "/v1/me/nwc/connections", asks)
		c = nwc.Connection{}
		r.decode(t, &c)
		if r.Code != http.StatusCreated || c.Pubkey != pub || c.WalletID == "" {
			t.Fatalf("the admin approves it: %d %s", r.Code, r.Body)
		}
		if w, err := e.Wallets.Get(context.Background(), c.WalletID); err != nil || w.Label == nil || *w.Label != "Arcade" {
			t.Fatalf("the arcade's wallet %+v %v", w, err)
		}
		e.CheckLedger()
	})
}
