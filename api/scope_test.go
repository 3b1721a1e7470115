package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// scopeTable is the seed's permission table, written out by hand so that it
// checks the router instead of restating it. Scope "" means any
// authenticated principal.
var scopeTable = []struct {
	method, path string
	scope        string
	admin        bool
}{
	{"POST", "/v1/auth/change-password", "", true},
	{"GET", "/v1/me", "", false},
	{"GET", "/v1/me/balance", "read:wallet", false},
	{"POST", "/v1/me/invoices", "write:transaction", false},
	{"GET", "/v1/me/invoices", "read:transaction", false},
	{"GET", "/v1/me/invoices/{id}", "read:transaction", false},
	{"GET", "/v1/me/invoices/export", "read:transaction", false},
	{"POST", "/v1/me/hold-invoices", "write:transaction", false},
	{"GET", "/v1/me/keysend", "read:wallet", false},
	{"POST", "/v1/me/invoices/{id}/settle", "write:transaction", false},
	{"POST", "/v1/me/invoices/{id}/cancel", "write:transaction", false},
	{"POST", "/v1/me/payments", "write:transaction", false},
	{"POST", "/v1/me/payments/fee-estimate", "read:transaction", false},
	{"GET", "/v1/me/payments", "read:transaction", false},
	{"GET", "/v1/me/payments/{id}", "read:transaction", false},
	{"GET", "/v1/me/payments/export", "read:transaction", false},
	{"GET", "/v1/me/events", "read:transaction", false},
	{"GET", "/v1/events", "read:transaction", true},
	{"POST", "/v1/invoices", "write:transaction", true},
	{"GET", "/v1/invoices", "read:transaction", true},
	{"GET", "/v1/invoices/{id}", "read:transaction", true},
	{"GET", "/v1/invoices/export", "read:transaction", true},
	{"POST", "/v1/hold-invoices", "write:transaction", true},
	{"POST", "/v1/invoices/{id}/settle", "write:transaction", true},
	{"POST", "/v1/invoices/{id}/cancel", "write:transaction", true},
	{"POST", "/v1/payments", "write:transaction", true},
	{"GET", "/v1/payments", "read:transaction", true},
	{"GET", "/v1/payments/{id}", "read:transaction", true},
	{"GET", "/v1/payments/export", "read:transaction", true},
	{"GET", "/v1/lightning-node/info", "read:ln_node", true},
	{"POST", "/v1/lightning-node/pay", "write:ln_node", true},
	{"POST", "/v1/me/api-keys", "write:api_key", false},
	{"GET", "/v1/me/api-keys", "read:api_key", false},
	{"GET", "/v1/me/api-keys/{id}", "read:api_key", false},
	{"PATCH", "/v1/me/api-keys/{id}", "write:api_key", false},
	{"DELETE", "/v1/me/api-keys/{id}", "write:api_key", false},
	{"POST", "/v1/wallets", "write:wallet", true},
	{"GET", "/v1/wallets", "read:wallet", true},
	{"GET", "/v1/wallets/{id}", "read:wallet", true},
	{"DELETE", "/v1/wallets/{id}", "write:wallet", true},
	{"POST", "/v1/api-keys", "write:api_key", true},
	{"GET", "/v1/api-keys", "read:api_key", true},
	{"GET", "/v1/api-keys/{id}", "read:api_key", true},
	{"PATCH", "/v1/api-keys/{id}", "write:api_key", true},
	{"DELETE", "/v1/api-keys/{id}", "write:api_key", true},
	{"GET", "/v1/system/stats", "read:wallet", true},
	{"GET", "/v1/plugins", "read:wallet", true},
	{"POST", "/v1/plugins", "write:wallet", true},
	{"GET", "/v1/plugins/catalog", "read:wallet", true},
	{"POST", "/v1/plugins/install", "write:wallet", true},
	{"GET", "/v1/plugins/{name}", "read:wallet", true},
	{"DELETE", "/v1/plugins/{name}", "write:wallet", true},
	{"POST", "/v1/plugins/{name}/enable", "write:wallet", true},
	{"POST", "/v1/plugins/{name}/disable", "write:wallet", true},
	{"PUT", "/v1/plugins/{name}/config", "write:wallet", true},
	{"GET", "/v1/plugins/{name}/logs", "read:wallet", true},
}

const someID = "3f1c2a6e-7b4d-4c1e-9a2f-5d6e7f8a9b0c"

func TestScopeTable(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, nil)
		for _, row := range scopeTable {
			path := strings.ReplaceAll(row.path, "{id}", someID)
			path = strings.ReplaceAll(path, "{name}", "no-such-plugin")
			var body any
			if row.method == "POST" || row.method == "PUT" {
				body = `{}`
			}
			name := row.method + " " + row.path
			// A stream would not end: a Last-Event-ID that is no id ends
			// it with 400 once the caller is let in.
			var extra []string
			if strings.HasSuffix(row.path, "/events") {
				extra = []string{"Last-Event-ID", "not-an-id"}
			}
			denied := func(what string, status int, headers ...string) {
				t.Helper()
				r := e.do(row.method, path, body, append(headers, extra...)...)
				if r.Code != status {
					t.Errorf("%s %s: status %d, want %d (%s)", name, what, r.Code, status, r.Body)
					return
				}
				r.problem(t)
			}
			allowed := func(what string, headers ...string) {
				t.Helper()
				if r := e.do(row.method, path, body, append(headers, extra...)...); r.Code == 401 || r.Code == 403 || r.Code >= 500 {
					t.Errorf("%s %s: status %d, want access (%s)", name, what, r.Code, r.Body)
				}
			}

			denied("without credentials", 401)
			denied("with a garbage token", 401, bearer("not-a-token")...)
			denied("with an unknown key", 401, apiKey("hk_unknown")...)

			need := auth.Scopes(0)
			if row.scope != "" {
				s, ok := auth.ParseScope(row.scope)
				if !ok {
					t.Fatalf("bad scope %q in table", row.scope)
				}
				need = auth.NewScopes(s)
				// The admin, holding every scope but this one: 403.
				denied("as admin without "+row.scope, 403, apiKey(e.makeKey(auth.AdminUserID, auth.AllScopes&^need))...)
				// A token with no scope at all: 403.
				tok, err := e.tokens.Issue(auth.AdminUserID, 0)
				if err != nil {
					t.Fatal(err)
				}
				denied("as admin with no scopes", 403, bearer(tok)...)
			}
			// The admin with exactly the scope (or none, when none is needed): allowed.
			if need != 0 {
				allowed("as admin with "+row.scope, apiKey(e.makeKey(auth.AdminUserID, need))...)
			} else {
				tok, err := e.tokens.Issue(auth.AdminUserID, 0)
				if err != nil {
					t.Fatal(err)
				}
				allowed("as admin with no scopes", bearer(tok)...)
			}
			// Another user with every scope: admin routes refused, /me allowed.
			other := apiKey(e.makeKey("mallory", auth.AllScopes))
			if row.admin {
				denied("as a non-admin user with every scope", 403, other...)
			} else {
				allowed("as a non-admin user", other...)
			}
		}
	})
}

// TestScopeTableCoversEveryRoute makes the table above fail when a guarded
// route is added without a row, and checks public routes need nothing.
func TestScopeTableCoversEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), nil)
	var doc struct {
		Paths map[string]map[string]struct {
			Security []map[string][]string `json:"security"`
			Scope    string                `json:"x-required-scope"`
			Admin    bool                  `json:"x-admin-only"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.do("GET", "/v1/openapi.json", nil).expect(t, 200).Body, &doc); err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, r := range scopeTable {
		rows[r.method+" "+r.path] = true
	}
	guarded := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			key := strings.ToUpper(method) + " " + path
			if len(op.Security) == 0 {
				if rows[key] {
					t.Errorf("%s is public in the document but guarded in the table", key)
				}
				continue
			}
			guarded++
			if !rows[key] {
				t.Errorf("%s is guarded (scope %q, admin %v) but missing from scopeTable", key, op.Scope, op.Admin)
			}
		}
	}
	if guarded != len(scopeTable) {
		t.Errorf("document has %d guarded routes, table has %d rows", guarded, len(scopeTable))
	}
	for _, r := range scopeTable {
		if op, ok := doc.Paths[r.path][strings.ToLower(r.method)]; !ok || op.Scope != r.scope || op.Admin != r.admin {
			t.Errorf("%s %s: document says scope %q admin %v, table %q %v", r.method, r.path, op.Scope, op.Admin, r.scope, r.admin)
		}
	}
}
