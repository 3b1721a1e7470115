package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A key's budget as the API shows it: on creation, reading and listing,
// by its owner and by the admin; renewal omitted means never, which shows
// no renews_at; a key without a budget has no budget field at all.
func TestKeyBudgetJSON(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice := e.user("alice")
		admin := bearer(e.adminToken())
		var made map[string]any
		e.do("POST", "/v1/api-keys", map[string]any{"user_id": "alice", "name": "n", "permissions": []string{"write:transaction"},
			"budget": map[string]any{"max_msat": 21_000}}, admin...).expect(t, 201).decodeJSON(t, &made)
		if b, _ := json.Marshal(made["budget"]); string(b) != `{"max_msat":21000,"renewal":"never","used_msat":0}` {
			t.Fatalf("budget of a never-renewing key = %s", b)
		}
		k, _ := alice.budgetKey(t, map[string]any{"max_msat": 5_000, "renewal": "monthly"})
		var listed []map[string]any
		e.do("GET", "/v1/me/api-keys", nil, alice.key...).expect(t, 200).decodeJSON(t, &listed)
		if len(listed) != 3 {
			t.Fatalf("alice's keys = %+v", listed)
		}
		for _, l := range listed {
			b, has := l["budget"].(map[string]any)
			switch l["id"] {
			case k.ID:
				if b["max_msat"] != 5_000.0 || b["renewal"] != "monthly" || b["used_msat"] != 0.0 || b["renews_at"] == nil {
					t.Fatalf("monthly budget = %v", b)
				}
			case made["id"]:
				if !has || b["renews_at"] != nil {
					t.Fatalf("never budget = %v", b)
				}
			default: // the key of every scope that e.user made
				if _, has := l["budget"]; has {
					t.Fatalf("a key without a budget shows %v", l["budget"])
				}
			}
		}
		var got map[string]any
		e.do("GET", "/v1/api-keys/"+k.ID, nil, admin...).expect(t, 200).decodeJSON(t, &got)
		if b, _ := got["budget"].(map[string]any); b == nil || b["renewal"] != "monthly" {
			t.Fatalf("the admin reads %v", got)
		}
	})
}

// A bad budget is refused like any bad key request, on the user's route
// and the admin's: 422 invalid_api_key_request for a value out of range or
// an unknown renewal, 400 for a wrong type or an unknown field. No key is
// made.
func TestKeyBudgetRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		alice := e.user("alice")
		admin := bearer(e.adminToken())
		for _, c := range []struct {
			budget string
			status int
		}{
			{`{"max_msat":0,"renewal":"daily"}`, 422},
			{`{"max_msat":-1}`, 422},
			{`{"max_msat":2100000000000000001,"renewal":"yearly"}`, 422},
			{`{"max_msat":1000,"renewal":"hourly"}`, 422},
			{`{"max_msat":1000,"renewal":"Daily"}`, 422},
			{`{"renewal":"daily"}`, 422},
			{`{}`, 422},
			{`{"max_msat":"1000"}`, 400},
			{`{"max_msat":1.5}`, 400},
			{`{"max_msat":1e30}`, 400},
			{`{"max_msat":1000,"renewal":7}`, 400},
			{`{"max_msat":1000,"period":"daily"}`, 400},
			{`"daily"`, 400},
		} {
			for _, route := range []struct {
				path string
				body string
				cred []string
			}{
				{"/v1/me/api-keys", `{"name":"k","permissions":["read:wallet"],"budget":` + c.budget + `}`, alice.key},
				{"/v1/api-keys", `{"user_id":"alice","name":"k","permissions":["read:wallet"],"budget":` + c.budget + `}`, admin},
			} {
				p := e.do("POST", route.path, route.body, route.cred...).expect(t, c.status).problem(t)
				if c.status == 422 && (p.Code != "invalid_api_key_request" || !strings.Contains(p.Reason, "budget")) {
					t.Fatalf("%s %s: %+v", route.path, c.budget, p)
				}
			}
		}
		var keys []auth.APIKey
		e.do("GET", "/v1/me/api-keys", nil, alice.key...).expect(t, 200).decodeJSON(t, &keys)
		if len(keys) != 1 {
			t.Fatalf("refused keys were made: %d keys", len(keys))
		}
	})
}

// The OpenAPI document describes the budget: asked for as BudgetSpec
// (renewal an enum) on both key routes, shown as BudgetStatus on the key,
// and the payment's api_key_id.
func TestOpenAPIDescribesBudgets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	doc, err := openapi3.NewLoader().LoadFromData(e.do("GET", "/v1/openapi.json", nil).expect(t, 200).Body)
	if err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	for name, ref := range map[string]string{"ApiKeyRequest": "BudgetSpec", "AdminAPIKeyRequest": "BudgetSpec", "APIKey": "BudgetStatus"} {
		s := schemas[name]
		if s == nil || s.Value.Properties["budget"] == nil || s.Value.Properties["budget"].Ref != "#/components/schemas/"+ref {
			t.Fatalf("%s.budget is not a %s: %+v", name, ref, s)
		}
	}
	spec, status := schemas["BudgetSpec"].Value, schemas["BudgetStatus"].Value
	if r := spec.Properties["renewal"]; r == nil || len(r.Value.Enum) != 5 {
		t.Fatalf("BudgetSpec.renewal = %+v", r)
	}
	for _, f := range []string{"max_msat", "renewal", "used_msat", "renews_at"} {
		if status.Properties[f] == nil {
			t.Fatalf("BudgetStatus lacks %s", f)
		}
	}
	if schemas["Payment"].Value.Properties["api_key_id"] == nil {
		t.Fatal("Payment lacks api_key_id")
	}
}
