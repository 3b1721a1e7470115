package api_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// errorLeaks are fragments of internal error text that a reason must never
// carry. They are matched case-insensitively, except "json:", the prefix of
// encoding/json's own messages, which is matched as is: the API's own
// "Malformed JSON: …" reasons are meant for people.
var errorLeaks = []string{"sql", "bun", "pgx", "sqlite", "goroutine", "runtime", ".go:"}

func checkNoLeak(t testing.TB, reason string) {
	t.Helper()
	lower := strings.ToLower(reason)
	for _, frag := range errorLeaks {
		if strings.Contains(lower, frag) {
			t.Errorf("reason %q leaks %q", reason, frag)
		}
	}
	if strings.Contains(reason, "json:") {
		t.Errorf("reason %q leaks %q", reason, "json:")
	}
}

// errorRow is one bad request and the error it must get.
type errorRow struct {
	name         string
	server       string // "" for the main server, "tight" for the one with a drained sign-in limiter
	method, path string
	body         string // sent raw; "" sends no body
	headers      []string
	status       int
	code         string
	header       string // a response header that must be set
}

func TestErrorFormat(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		e := newEnv(t, db, nil)
		// tight shares the database, with a sign-in limiter of one request.
		tight := newEnv(t, db, func(c *config.Config, _ *api.Deps) {
			c.Auth.SignInRate = 1
			c.Auth.SignInBurst = 1
		})
		servers := map[string]*env{"": e, "tight": tight}

		// Every response of the test, setup included, is checked for a 500.
		var statuses []int
		send := func(srv *env, method, path string, body any, headers ...string) response {
			r := srv.do(method, path, body, headers...)
			statuses = append(statuses, r.Code)
			return r
		}

		// Setup: the admin has signed up; keys of various reach; a funded
		// wallet.
		send(e, "POST", "/v1/auth/sign-up", map[string]any{"password": "correct horse battery"}).expect(t, 200)
		admin := bearer(e.adminToken())
		readOnly := apiKey(e.makeKey(auth.AdminUserID, auth.NewScopes(auth.ReadWallet)))
		keyMaker := apiKey(e.makeKey(auth.AdminUserID, auth.NewScopes(auth.ReadWallet, auth.WriteAPIKey)))
		nonAdmin := apiKey(e.makeKey("bob", auth.AllScopes))
		var funded struct {
			ID string `json:"id"`
		}
		send(e, "POST", "/v1/wallets", map[string]any{"user_id": "rich"}, admin...).expect(t, 201).decodeJSON(t, &funded)
		if _, err := db.W.ExecContext(ctx, "UPDATE wallets SET available_msat = ?, received_msat = ? WHERE id = ?",
			5000, 5000, funded.ID); err != nil {
			t.Fatal(err)
		}
		// Drain tight's sign-in limiter (the wrong password is not the point).
		send(tight, "POST", "/v1/auth/sign-in", map[string]any{"password": "wrong password"}).expect(t, 401)

		key := func(body string) string { return `{"name":"k","permissions":["read:wallet"]` + body + `}` }
		huge := `{"name":"` + strings.Repeat("x", 70<<10) + `","permissions":["read:wallet"]}`
		rows := []errorRow{
			// 400: the body.
			{name: "malformed JSON", method: "POST", path: "/v1/me/api-keys", body: `{"name": k}`, headers: admin, status: 400, code: "invalid_request"},
			{name: "truncated JSON", method: "POST", path: "/v1/me/api-keys", body: `{"name": "k"`, headers: admin, status: 400, code: "invalid_request"},
			{name: "wrong field type", method: "POST", path: "/v1/me/api-keys", body: `{"name": 7, "permissions": ["read:wallet"]}`, headers: admin, status: 400, code: "invalid_request"},
			{name: "wrong element type", method: "POST", path: "/v1/me/api-keys", body: `{"name": "k", "permissions": [1]}`, headers: admin, status: 400, code: "invalid_request"},
			{name: "unknown field", method: "POST", path: "/v1/me/api-keys", body: key(`,"admin":true`), headers: admin, status: 400, code: "invalid_request"},
			{name: "empty body", method: "POST", path: "/v1/me/api-keys", body: "", headers: append([]string{"Content-Type", "application/json"}, admin...), status: 400, code: "invalid_request"},
			{name: "trailing data", method: "POST", path: "/v1/me/api-keys", body: key("") + ` {}`, headers: admin, status: 400, code: "invalid_request"},
			{name: "array body", method: "POST", path: "/v1/me/api-keys", body: `[{"name":"k"}]`, headers: admin, status: 400, code: "invalid_request"},
			{name: "string body", method: "POST", path: "/v1/wallets", body: `"rich"`, headers: admin, status: 400, code: "invalid_request"},
			{name: "missing required field", method: "POST", path: "/v1/me/api-keys", body: `{"permissions":["read:wallet"]}`, headers: admin, status: 400, code: "invalid_request"},
			{name: "null body", method: "POST", path: "/v1/wallets", body: `null`, headers: admin, status: 400, code: "invalid_request"},
			{name: "missing password", method: "POST", path: "/v1/auth/sign-in", body: `{}`, status: 400, code: "invalid_request"},
			// 400: the URL.
			{name: "invalid UUID in path", method: "GET", path: "/v1/me/api-keys/not-a-uuid", headers: admin, status: 400, code: "invalid_request"},
			{name: "UUID without dashes", method: "DELETE", path: "/v1/wallets/" + strings.ReplaceAll(uuid.NewString(), "-", ""), headers: admin, status: 400, code: "invalid_request"},
			{name: "bad limit", method: "GET", path: "/v1/wallets?limit=0", headers: admin, status: 400, code: "invalid_request"},
			{name: "non-numeric limit", method: "GET", path: "/v1/me/api-keys?limit=ten", headers: admin, status: 400, code: "invalid_request"},
			{name: "negative offset", method: "GET", path: "/v1/api-keys?offset=-1", headers: admin, status: 400, code: "invalid_request"},
			{name: "bad order_direction", method: "GET", path: "/v1/wallets?order_direction=sideways", headers: admin, status: 400, code: "invalid_request"},
			// 404, 405, 413, 415: the HTTP layer.
			{name: "unknown route", method: "GET", path: "/v1/nope", headers: admin, status: 404, code: "not_found"},
			{name: "unknown route without credentials", method: "GET", path: "/v2/me", status: 404, code: "not_found"},
			{name: "wrong method", method: "PUT", path: "/v1/me", headers: admin, status: 405, code: "method_not_allowed"},
			{name: "body too large", method: "POST", path: "/v1/me/api-keys", body: huge, headers: admin, status: 413, code: "body_too_large"},
			{name: "wrong content type", method: "POST", path: "/v1/me/api-keys", body: key(""), headers: append([]string{"Content-Type", "text/plain"}, admin...), status: 415, code: "unsupported_media_type"},
			{name: "unparsable content type", method: "POST", path: "/v1/wallets", body: `{"user_id":"x"}`, headers: append([]string{"Content-Type", "application/json; =;"}, admin...), status: 415, code: "unsupported_media_type"},
			// 401: credentials.
			{name: "no credentials", method: "GET", path: "/v1/me", status: 401, code: "missing_credentials", header: "WWW-Authenticate"},
			{name: "malformed Authorization header", method: "GET", path: "/v1/me", headers: []string{"Authorization", "Basic YWRtaW46cHc="}, status: 401, code: "invalid_token", header: "WWW-Authenticate"},
			{name: "empty bearer", method: "GET", path: "/v1/me", headers: []string{"Authorization", "Bearer "}, status: 401, code: "invalid_token", header: "WWW-Authenticate"},
			{name: "bad bearer token", method: "GET", path: "/v1/me", headers: bearer("eyJhbGciOiJIUzI1NiJ9.e30.c2ln"), status: 401, code: "invalid_token", header: "WWW-Authenticate"},
			{name: "unknown API key", method: "GET", path: "/v1/me", headers: apiKey("hk_" + strings.Repeat("A", 43)), status: 401, code: "invalid_api_key", header: "WWW-Authenticate"},
			{name: "API key without prefix", method: "GET", path: "/v1/me", headers: apiKey("not-a-key"), status: 401, code: "invalid_api_key", header: "WWW-Authenticate"},
			{name: "wrong password", method: "POST", path: "/v1/auth/sign-in", body: `{"password":"not the password"}`, status: 401, code: "invalid_credentials", header: "WWW-Authenticate"},
			// 403: authorisation.
			{name: "key lacking the scope", method: "POST", path: "/v1/me/api-keys", body: key(""), headers: readOnly, status: 403, code: "forbidden"},
			{name: "non-admin key on admin route", method: "GET", path: "/v1/wallets", headers: nonAdmin, status: 403, code: "admin_only"},
			// 404: resources.
			{name: "unknown wallet id", method: "GET", path: "/v1/wallets/" + uuid.NewString(), headers: admin, status: 404, code: "not_found"},
			{name: "unknown API key id", method: "DELETE", path: "/v1/me/api-keys/" + uuid.NewString(), headers: admin, status: 404, code: "not_found"},
			// 409: state.
			{name: "sign-up twice", method: "POST", path: "/v1/auth/sign-up", body: `{"password":"another good password"}`, status: 409, code: "already_signed_up"},
			{name: "wallet exists", method: "POST", path: "/v1/wallets", body: `{"user_id":"rich"}`, headers: admin, status: 409, code: "wallet_exists"},
			// 422: rules.
			{name: "weak password", method: "POST", path: "/v1/auth/sign-up", body: `{"password":"short"}`, status: 422, code: "weak_password"},
			{name: "wrong current password", method: "POST", path: "/v1/auth/change-password", body: `{"current_password":"nope nope","new_password":"a fine new password"}`, headers: admin, status: 422, code: "wrong_password"},
			{name: "permissions exceed the caller's", method: "POST", path: "/v1/me/api-keys", body: `{"name":"k","permissions":["read:wallet","write:wallet"]}`, headers: keyMaker, status: 422, code: "permission_exceeded"},
			{name: "expiry over one year", method: "POST", path: "/v1/me/api-keys", body: key(`,"expiry":31536001`), headers: admin, status: 422, code: "invalid_api_key_request"},
			{name: "unknown permission", method: "POST", path: "/v1/me/api-keys", body: `{"name":"k","permissions":["read:everything"]}`, headers: admin, status: 422, code: "invalid_api_key_request"},
			{name: "no permissions", method: "POST", path: "/v1/me/api-keys", body: `{"name":"k","permissions":[]}`, headers: admin, status: 422, code: "invalid_api_key_request"},
			{name: "blank key name", method: "POST", path: "/v1/me/api-keys", body: `{"name":"  ","permissions":["read:wallet"]}`, headers: admin, status: 422, code: "invalid_api_key_request"},
			{name: "blank wallet user", method: "POST", path: "/v1/wallets", body: `{"user_id":""}`, headers: admin, status: 422, code: "invalid_wallet"},
			{name: "delete funded wallet", method: "DELETE", path: "/v1/wallets/" + funded.ID, headers: admin, status: 422, code: "wallet_not_empty"},
			// 429.
			{name: "sign-in rate limit", server: "tight", method: "POST", path: "/v1/auth/sign-in", body: `{"password":"correct horse battery"}`, status: 429, code: "rate_limited", header: "Retry-After"},
		}

		kinds := map[string]bool{}
		for _, row := range rows {
			t.Run(row.name, func(t *testing.T) {
				var body any
				if row.body != "" {
					body = row.body
				}
				r := send(servers[row.server], row.method, row.path, body, row.headers...)
				if r.Code >= 500 {
					t.Fatalf("status %d; body %s", r.Code, r.Body)
				}
				p := r.problemIs(t, row.status, row.code)
				t.Logf("%d %s: %s", r.Code, p.Code, p.Reason)
				checkNoLeak(t, p.Reason)
				if row.header != "" && r.Header.Get(row.header) == "" {
					t.Errorf("%s header not set", row.header)
				}
				if ra := r.Header.Get("Retry-After"); ra != "" {
					if n, err := strconv.Atoi(ra); err != nil || n < 1 {
						t.Errorf("Retry-After = %q, want a positive number of seconds", ra)
					}
				}
				if r.Header.Get("X-Request-Id") == "" {
					t.Error("X-Request-Id header not set")
				}
				kinds[row.code+"/"+http.StatusText(row.status)] = true
			})
		}
		if len(kinds) < 18 {
			t.Errorf("the table covers %d kinds of error, want at least 18", len(kinds))
		}

		// The rejected requests changed nothing.
		send(e, "GET", "/v1/wallets/"+funded.ID, nil, admin...).expect(t, 200)
		send(e, "POST", "/v1/auth/sign-in", map[string]any{"password": "correct horse battery"}).expect(t, 200)
		var keys []struct {
			Name string `json:"name"`
		}
		send(e, "GET", "/v1/me/api-keys", nil, admin...).expect(t, 200).decodeJSON(t, &keys)
		for _, k := range keys {
			if k.Name != "test" {
				t.Errorf("a refused request created API key %q", k.Name)
			}
		}

		for _, code := range statuses {
			if code >= 500 {
				t.Errorf("a request got %d", code)
			}
		}
	})
}
