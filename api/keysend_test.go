package api_test

import (
	"testing"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// A payment to a node's key is a keysend: its records are read and
// checked, and the embedded node, which reaches no other node, refuses
// it with nothing reserved (lnd sends it: plugins/node/lnd).
func TestKeysendRequests(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice := e.user("alice")
		alice.fund(t, 50_000)
		peer := "027d4f3c1b8e2a9f6051c3d7e4b2a8f9c0d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1" // a node's key, of no node here
		pay := func(body map[string]any) response {
			return e.do("POST", "/v1/me/payments", body, alice.key...)
		}
		pay(map[string]any{"input": peer, "amount_msat": 1_000, "tlv_records": map[string]string{"boost": "00"}}).expect(t, 400)
		pay(map[string]any{"input": peer, "amount_msat": 1_000, "tlv_records": map[string]string{"7629169": "zz"}}).expect(t, 400)
		for body, code := range map[string]map[string]any{
			"invalid_amount":    {"input": peer},
			"unsupported_input": {"input": peer, "amount_msat": 1_000, "tlv_records": map[string]string{"5482373484": "00"}},
			"no_external_node":  {"input": peer, "amount_msat": 1_000, "tlv_records": map[string]string{"7629169": "7b7d"}},
		} {
			if got := pay(code).expect(t, 422).problem(t).Code; got != body {
				t.Fatalf("%v: %s, want %s", code, got, body)
			}
		}
		if b := alice.balance(t); b != (wallet.Balance{AvailableMsat: 50_000, ReceivedMsat: 50_000}) {
			t.Fatalf("alice after the refusals: %+v", b)
		}
	})
}
