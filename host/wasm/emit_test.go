package wasm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/plugintest"
)

// A WebAssembly plugin adds events to the outbox with the emit host
// function: of its bound wallet, not of another (without events:all), of
// a type its manifest emits; and a plugin subscribed to the type (here
// itself, with read:transaction, which every event delivery needs) is
// delivered each.
func TestPluginEmitsEvents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{})
		alice, bob := e.Wallet("alice", 0), e.Wallet("bob", 0)
		m, _ := json.Marshal(map[string]any{"name": "herald", "version": "1.0.0", "abi": "hearth_v2",
			"scopes": []string{"read:transaction"},
			"routes": []map[string]any{{"method": "POST", "path": "/say", "public": true}},
			"emits":  []string{"herald.said"}, "events": []string{"herald.said"}})
		e.Install(plugin(t, "herald"), m)
		e.Enable("herald", alice.ID, "read:transaction")
		e.Eventually("the plugin's event cursor", func() bool {
			n, err := e.DB.R.NewSelect().Table("event_cursors").Where("name = ?", "plugin:herald").Count(context.Background())
			return err == nil && n == 1
		})
		say := func(walletID, subject string) (int, string) {
			body, _ := json.Marshal(map[string]string{"wallet_id": walletID, "subject_id": subject, "text": "hi " + subject})
			resp := e.Post("herald", "/say", body)
			return resp.Status, string(resp.Body)
		}
		if status, body := say(alice.ID, "s1"); status != 204 {
			t.Fatalf("emitting for the bound wallet: %d %s", status, body)
		}
		if status, body := say(bob.ID, "s2"); status != 400 || body != `{"code":"permission_denied"}` {
			t.Fatalf("emitting for another wallet: %d %s", status, body)
		}
		e.Eventually("the plugin to hear its event", func() bool { return kvValue(t, e, "herald", "heard/s1") != "" })
		if got := kvValue(t, e, "herald", "heard/s1"); got != `{"text":"hi s1"}` {
			t.Fatalf("the event heard: %s", got)
		}
		ctx := context.Background()
		for _, c := range []struct {
			wallet string
			want   int
		}{{alice.ID, 1}, {bob.ID, 0}} {
			evs, _, err := e.Outbox.Read(ctx, 0, outbox.Filter{WalletID: c.wallet, Types: []string{"herald.said"}}, 10)
			if err != nil || len(evs) != c.want {
				t.Fatalf("herald.said events of %s: %+v %v, want %d", c.wallet, evs, err, c.want)
			}
		}
	})
}
