package api_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

const oidcAudience = "hearth"

// oidcIssuer is an in-process OpenID Connect provider: a discovery document
// and a JWKS holding one RSA key, which signs the tokens it mints.
type oidcIssuer struct {
	t   testing.TB
	srv *httptest.Server
	key *rsa.PrivateKey
	kid string
	// down, while set, makes discovery answer 500.
	down atomic.Bool
}

func newOIDCKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func newOIDCIssuer(t testing.TB) *oidcIssuer {
	t.Helper()
	iss := &oidcIssuer{t: t, key: newOIDCKey(t), kid: "test-key-1"}
	mux := http.NewServeMux()
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if iss.down.Load() {
			http.Error(w, "provider down", http.StatusInternalServerError)
			return
		}
		u := iss.srv.URL
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                u,
			"authorization_endpoint":                u + "/authorize",
			"token_endpoint":                        u + "/token",
			"userinfo_endpoint":                     u + "/userinfo",
			"jwks_uri":                              u + "/jwks",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
			Key:       &iss.key.PublicKey,
			KeyID:     iss.kid,
			Algorithm: string(jose.RS256),
			Use:       "sig",
		}}}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	return iss
}

// URL is the issuer identifier.
func (iss *oidcIssuer) URL() string { return iss.srv.URL }

// oidcClaims are the claims of one minted token.
type oidcClaims struct {
	jwt.Claims
	Permissions any `json:"permissions,omitempty"`
	Roles       any `json:"roles,omitempty"`
}

// claims returns valid claims for sub: this issuer, the hearth audience, an
// hour to live.
func (iss *oidcIssuer) claims(sub string, permissions ...string) oidcClaims {
	now := time.Now()
	return oidcClaims{
		Claims: jwt.Claims{
			Issuer:    iss.URL(),
			Subject:   sub,
			Audience:  jwt.Audience{oidcAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			Expiry:    jwt.NewNumericDate(now.Add(time.Hour)),
		},
		Permissions: permissions,
	}
}

// sign returns c signed RS256 with the issuer's key.
func (iss *oidcIssuer) sign(c oidcClaims) string {
	iss.t.Helper()
	return signOIDC(iss.t, iss.key, iss.kid, c)
}

// token is a valid token for sub holding permissions.
func (iss *oidcIssuer) token(sub string, permissions ...string) string {
	iss.t.Helper()
	return iss.sign(iss.claims(sub, permissions...))
}

// adminToken is a valid token for sub with the admin role.
func (iss *oidcIssuer) adminToken(sub string, permissions ...string) string {
	iss.t.Helper()
	c := iss.claims(sub, permissions...)
	c.Roles = []string{"admin"}
	return iss.sign(c)
}

func signOIDC(t testing.TB, key *rsa.PrivateKey, kid string, c oidcClaims) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(signer).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// newOIDCEnv builds a server whose bearer tokens are verified against issuer.
func newOIDCEnv(t testing.TB, db *store.DB, issuer string) *env {
	t.Helper()
	return newEnv(t, db, func(c *config.Config, d *api.Deps) {
		c.Auth.Provider = "oidc"
		c.Auth.OIDC.Issuer = issuer
		c.Auth.OIDC.Audience = oidcAudience
		d.OIDC = auth.NewOIDC(auth.OIDCConfig{Issuer: issuer, Audience: oidcAudience})
	})
}

// oidcAllScopes is every permission name.
var oidcAllScopes = auth.AllScopes.Names()

// problemIs checks the status, the error body's shape, its status line and
// its code, and returns the body.
func (r response) problemIs(t testing.TB, status int, code string) api.Problem {
	t.Helper()
	r.expect(t, status)
	p := r.problem(t)
	if want := fmt.Sprintf("%d %s", status, http.StatusText(status)); p.Status != want {
		t.Fatalf("status field = %q, want %q", p.Status, want)
	}
	if p.Code != code {
		t.Fatalf("code = %q, want %q; body %s", p.Code, code, r.Body)
	}
	return p
}

func TestOIDCBearerToken(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newOIDCEnv(t, db, iss.URL())
		tok := iss.token("alice", "read:wallet")

		var bal struct {
			AvailableMsat *int64 `json:"available_msat"`
		}
		e.do("GET", "/v1/me/balance", nil, bearer(tok)...).expect(t, 200).decodeJSON(t, &bal)
		if bal.AvailableMsat == nil || *bal.AvailableMsat != 0 {
			t.Fatalf("balance of a new wallet: %+v", bal)
		}

		var me, again struct {
			ID     string `json:"id"`
			UserID string `json:"user_id"`
		}
		e.do("GET", "/v1/me", nil, bearer(tok)...).expect(t, 200).decodeJSON(t, &me)
		if me.UserID != "alice" || me.ID == "" {
			t.Fatalf("wallet = %+v, want user_id alice", me)
		}
		e.do("GET", "/v1/me", nil, bearer(iss.token("alice"))...).expect(t, 200).decodeJSON(t, &again)
		if again != me {
			t.Fatalf("second token of the same sub got wallet %+v, want %+v", again, me)
		}

		// The same token lacks write:api_key.
		p := e.do("POST", "/v1/me/api-keys", map[string]any{"name": "k", "permissions": []string{"read:wallet"}},
			bearer(tok)...).problemIs(t, 403, "forbidden")
		if p.Reason != "Missing permission: write:api_key" {
			t.Fatalf("reason = %q", p.Reason)
		}
		// ...and read:api_key.
		e.do("GET", "/v1/me/api-keys", nil, bearer(tok)...).problemIs(t, 403, "forbidden")
	})
}

func TestOIDCIgnoresUnknownPermissions(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newOIDCEnv(t, db, iss.URL())

		c := iss.claims("dave")
		c.Permissions = []any{"launch:rockets", "read:wallet", 42, "READ:API_KEY", nil}
		tok := iss.sign(c)
		e.do("GET", "/v1/me/balance", nil, bearer(tok)...).expect(t, 200)
		// None of the unknown names granted anything.
		e.do("GET", "/v1/me/api-keys", nil, bearer(tok)...).problemIs(t, 403, "forbidden")

		// A permissions claim that is a single string is read as one name.
		c = iss.claims("dave")
		c.Permissions = "read:wallet"
		e.do("GET", "/v1/me/balance", nil, bearer(iss.sign(c))...).expect(t, 200)

		// Only unknown names: a valid token with no scope at all.
		only := iss.token("dave", "write:everything")
		e.do("GET", "/v1/me", nil, bearer(only)...).expect(t, 200)
		e.do("GET", "/v1/me/balance", nil, bearer(only)...).problemIs(t, 403, "forbidden")
	})
}

func TestOIDCAdminRole(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newOIDCEnv(t, db, iss.URL())

		user := iss.token("bob", oidcAllScopes...)
		e.do("GET", "/v1/wallets", nil, bearer(user)...).problemIs(t, 403, "admin_only")
		e.do("POST", "/v1/wallets", map[string]any{"user_id": "eve"}, bearer(user)...).problemIs(t, 403, "admin_only")

		// A role that is not the admin role does not help.
		c := iss.claims("bob", oidcAllScopes...)
		c.Roles = []string{"operator", "Admin"}
		e.do("GET", "/v1/wallets", nil, bearer(iss.sign(c))...).problemIs(t, 403, "admin_only")

		admin := iss.adminToken("root", oidcAllScopes...)
		var ws []struct {
			UserID string `json:"user_id"`
		}
		e.do("GET", "/v1/wallets", nil, bearer(admin)...).expect(t, 200).decodeJSON(t, &ws)
		seen := map[string]bool{}
		for _, w := range ws {
			seen[w.UserID] = true
		}
		if !seen["bob"] || !seen["root"] {
			t.Fatalf("wallets = %+v, want bob's and root's", ws)
		}

		// The admin role does not replace the scope.
		e.do("GET", "/v1/wallets", nil, bearer(iss.adminToken("root", "read:api_key"))...).problemIs(t, 403, "forbidden")
		// A single-string roles claim works too.
		c = iss.claims("root", "read:wallet")
		c.Roles = "admin"
		e.do("GET", "/v1/wallets", nil, bearer(iss.sign(c))...).expect(t, 200)
	})
}

func TestOIDCRejectsBadTokens(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	other := newOIDCKey(t)
	e := newOIDCEnv(t, storetest.SQLite(t), iss.URL())

	// A good token first: the verifier is loaded and works.
	e.do("GET", "/v1/me/balance", nil, bearer(iss.token("alice", "read:wallet"))...).expect(t, 200)

	wrongAud := iss.claims("alice", "read:wallet")
	wrongAud.Audience = jwt.Audience{"someone-else"}
	expired := iss.claims("alice", "read:wallet")
	expired.IssuedAt = jwt.NewNumericDate(time.Now().Add(-2 * time.Hour))
	expired.NotBefore = expired.IssuedAt
	expired.Expiry = jwt.NewNumericDate(time.Now().Add(-time.Hour))
	wrongIss := iss.claims("alice", "read:wallet")
	wrongIss.Issuer = "https://issuer.invalid"
	noSub := iss.claims("", "read:wallet")

	cases := []struct {
		name  string
		token string
	}{
		{"wrong audience", iss.sign(wrongAud)},
		{"expired", iss.sign(expired)},
		{"other key, same kid", signOIDC(t, other, iss.kid, iss.claims("alice", "read:wallet"))},
		{"other key, unknown kid", signOIDC(t, other, "unknown-kid", iss.claims("alice", "read:wallet"))},
		{"wrong issuer", iss.sign(wrongIss)},
		{"no subject", iss.sign(noSub)},
		{"garbage", "not-a-jwt"},
		{"garbage with dots", "aaa.bbb.ccc"},
		{"password sign-in token", e.adminToken()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("GET", "/v1/me/balance", nil, bearer(tc.token)...)
			r.problemIs(t, 401, "invalid_token")
			if r.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
}

func TestOIDCPasswordRoutesOff(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newOIDCEnv(t, db, iss.URL())
		pw := map[string]any{"password": "correct horse battery"}
		e.do("POST", "/v1/auth/sign-up", pw).problemIs(t, 405, "password_auth_disabled")
		e.do("POST", "/v1/auth/sign-in", pw).problemIs(t, 405, "password_auth_disabled")
		e.do("POST", "/v1/auth/change-password",
			map[string]any{"current_password": "correct horse battery", "new_password": "another horse battery"},
			bearer(iss.adminToken("root", oidcAllScopes...))...).problemIs(t, 405, "password_auth_disabled")

		var st auth.Setup
		e.do("GET", "/v1/system/setup", nil).expect(t, 200).decodeJSON(t, &st)
		if !st.SignUpComplete {
			t.Fatalf("setup = %+v, want sign_up_complete", st)
		}
		// The refused sign-up left no password behind.
		e.do("POST", "/v1/auth/sign-in", pw).problemIs(t, 405, "password_auth_disabled")
	})
}

func TestOIDCAdminCreatesAPIKey(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		e := newOIDCEnv(t, db, iss.URL())
		tok := iss.adminToken("carol", "write:api_key", "read:wallet")

		var key struct {
			ID          string   `json:"id"`
			UserID      string   `json:"user_id"`
			Permissions []string `json:"permissions"`
			Key         string   `json:"key"`
		}
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "ci", "permissions": []string{"read:wallet"}},
			bearer(tok)...).expect(t, 201).decodeJSON(t, &key)
		if key.UserID != "carol" || key.Key == "" || len(key.Permissions) != 1 || key.Permissions[0] != "read:wallet" {
			t.Fatalf("key = %+v", key)
		}

		e.do("GET", "/v1/me/balance", nil, apiKey(key.Key)...).expect(t, 200)
		var me struct {
			UserID string `json:"user_id"`
		}
		e.do("GET", "/v1/me", nil, apiKey(key.Key)...).expect(t, 200).decodeJSON(t, &me)
		if me.UserID != "carol" {
			t.Fatalf("key's wallet belongs to %q, want carol", me.UserID)
		}
		// The admin made the key for themself, so it is an admin key, limited
		// to its own scopes.
		e.do("GET", "/v1/wallets", nil, apiKey(key.Key)...).expect(t, 200)
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "x", "permissions": []string{"read:wallet"}},
			apiKey(key.Key)...).problemIs(t, 403, "forbidden")

		// The token cannot hand out a scope it does not hold.
		e.do("POST", "/v1/me/api-keys", map[string]any{"name": "ci", "permissions": []string{"write:wallet"}},
			bearer(tok)...).problemIs(t, 422, "permission_exceeded")
	})
}

func TestOIDCIssuerUnreachable(t *testing.T) {
	t.Parallel()

	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		gone := httptest.NewServer(http.NotFoundHandler())
		url := gone.URL
		gone.Close()
		e := newOIDCEnv(t, storetest.SQLite(t), url)
		for range 2 { // discovery is retried on every request, and fails again
			r := e.do("GET", "/v1/me/balance", nil, bearer("aaa.bbb.ccc")...)
			r.problemIs(t, 503, "identity_provider_unavailable")
		}
		// Public routes do not need the provider.
		e.do("GET", "/v1/system/version", nil).expect(t, 200)
	})

	t.Run("recovers", func(t *testing.T) {
		t.Parallel()
		iss := newOIDCIssuer(t)
		iss.down.Store(true)
		e := newOIDCEnv(t, storetest.SQLite(t), iss.URL())
		tok := iss.token("alice", "read:wallet")
		e.do("GET", "/v1/me/balance", nil, bearer(tok)...).problemIs(t, 503, "identity_provider_unavailable")
		iss.down.Store(false)
		e.do("GET", "/v1/me/balance", nil, bearer(tok)...).expect(t, 200)
	})
}
