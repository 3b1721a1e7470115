package lnurl_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/plugins/lnurl"
	"github.com/hearthwallet/hearth/plugintest"
)

// /.well-known/keysend/<username> answers Podcast Index's keysend address
// of an active Lightning Address whose owner allows keysend — the node's
// key and record 696969 naming the wallet, which the ledger credits —
// and 404 in the LUD form for an unknown, inactive or not allowing one.
func TestKeysendAddress(t *testing.T) {
	t.Parallel()
	o := plugintest.Options{Node: plugintest.Reachable}
	plugintest.Each(t, o, func(t *testing.T, e *plugintest.Env) {
		ctx := context.Background()
		k := newKit(t, e, lnurl.Config{}, nil)
		aliceTok, alice := k.user("alice", 0)
		if a := k.register(aliceTok, "alice"); a.AllowsKeysend {
			t.Fatalf("a new address allows keysend: %+v", a)
		}
		notFound := func(path string) {
			t.Helper()
			r := k.do("", "GET", path, nil)
			var e lnurl.Error
			r.json(t, &e)
			if r.Code != 404 || e.Status != "ERROR" || e.Reason == "" {
				t.Fatalf("%s: %d %s, want 404 {status: ERROR, reason}", path, r.Code, r.Body)
			}
		}
		notFound("/.well-known/keysend/alice")
		notFound("/.well-known/keysend/nobody")
		notFound("/.well-known/keysend/not%20a%20name")

		var changed lnurl.Address
		r := k.do(aliceTok, "PUT", "/v1/me/lightning-address", map[string]any{"allows_keysend": true})
		if r.json(t, &changed); r.Code != 200 || !changed.AllowsKeysend {
			t.Fatalf("allowing keysend: %d %s", r.Code, r.Body)
		}
		r = k.do("", "GET", "/.well-known/keysend/Alice", nil)
		if r.Code != 200 || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("keysend address: %d %v %s", r.Code, r.Header, r.Body)
		}
		var got lnurl.KeysendParams
		r.json(t, &got)
		info, err := e.Node.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		id, err := e.Ledger.KeysendID(ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "OK" || got.Tag != "keysend" || got.Pubkey != info.Pubkey || len(got.CustomData) != 1 ||
			got.CustomData[0] != (lnurl.CustomData{CustomKey: "696969", CustomValue: id}) {
			t.Fatalf("alice's keysend address %s; the node %s, her id %s", r.Body, info.Pubkey, id)
		}

		k.do(aliceTok, "PUT", "/v1/me/lightning-address", map[string]any{"active": false})
		notFound("/.well-known/keysend/alice")
		k.do(aliceTok, "PUT", "/v1/me/lightning-address", map[string]any{"active": true, "allows_keysend": false})
		notFound("/.well-known/keysend/alice")
	})
}
