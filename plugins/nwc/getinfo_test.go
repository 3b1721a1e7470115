package nwc_test

import (
	"slices"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/plugintest"
)

// info is get_info's result as an app reads it.
type info struct {
	Alias         string   `json:"alias"`
	Pubkey        string   `json:"pubkey"`
	Network       string   `json:"network"`
	BlockHeight   int64    `json:"block_height"`
	BlockHash     string   `json:"block_hash"`
	Methods       []string `json:"methods"`
	Notifications []string `json:"notifications"`
	Lud16         string   `json:"lud16"`
}

// TestInfoAndBudgetAlwaysAnswered asks get_info and get_budget of a
// connection granted neither: both are answered, get_info with the
// connection's methods but none of the node's details. Granted get_info,
// a connection reads the node's details, its notifications and the
// wallet's Lightning Address.
func TestInfoAndBudgetAlwaysAnswered(t *testing.T) {
	plugintest.Each(t, plugintest.Options{AllowPrivate: true}, func(t *testing.T, e *plugintest.Env) {
		k := newKit(t, e, nil)
		alice, w := k.user("alice", 100_000, auth.AllScopes)
		k.addresses.set(w.ID, "alice@example.com")

		_, maker := k.connect(alice, map[string]any{"name": "till", "methods": []string{"make_invoice"},
			"budget": map[string]any{"max_msat": 10_000, "renewal": "weekly"}})
		var got info
		maker.Call("get_info", nil).Decode(t, &got)
		if !slices.Equal(got.Methods, []string{"make_invoice"}) || got.Notifications != nil ||
			got.Pubkey != "" || got.Network != "" || got.BlockHeight != 0 || got.BlockHash != "" {
			t.Fatalf("get_info not granted: %+v", got)
		}
		var budget struct {
			Used    int64  `json:"used_budget"`
			Total   int64  `json:"total_budget"`
			Renewal string `json:"renewal_period"`
		}
		maker.Call("get_budget", nil).Decode(t, &budget)
		if budget.Used != 0 || budget.Total != 10_000 || budget.Renewal != "weekly" {
			t.Fatalf("get_budget not granted: %+v", budget)
		}

		_, reader := k.connect(alice, map[string]any{"name": "reader", "methods": []string{"get_info", "notifications"}})
		got = info{}
		reader.Call("get_info", nil).Decode(t, &got)
		if !slices.Equal(got.Methods, []string{"get_info"}) || len(got.Notifications) != 3 ||
			got.Pubkey == "" || got.Network == "" || got.Lud16 != "alice@example.com" {
			t.Fatalf("get_info granted: %+v", got)
		}
		var none map[string]any
		reader.Call("get_budget", nil).Decode(t, &none)
		if len(none) != 0 {
			t.Fatalf("get_budget of no budget: %+v", none)
		}
	})
}
