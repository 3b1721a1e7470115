package api_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// setupAnswer is GET /v1/system/setup's answer.
type setupAnswer struct {
	WelcomeComplete bool   `json:"welcome_complete"`
	SignUpComplete  bool   `json:"sign_up_complete"`
	Domain          string `json:"domain"`
	Auth            *struct {
		Provider string `json:"provider"`
		Issuer   string `json:"issuer"`
		Audience string `json:"audience"`
		ClientID string `json:"client_id"`
		Scopes   string `json:"scopes"`
		Roles    string `json:"roles_claim"`
		Admin    string `json:"admin_role"`
	} `json:"auth"`
}

// The setup answer tells a client, before anyone signs in, the domain of
// the Lightning Addresses and how people sign in: the password here, or
// the dashboard's OIDC client (and then the dashboard's policy lets it
// reach that provider, and no other host).
func TestSetupTellsDomainAndSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetest.SQLite(t), func(c *config.Config, _ *api.Deps) { c.Domain = "pay.example.com" })
	var st setupAnswer
	r := e.do("GET", "/v1/system/setup", nil).expect(t, 200)
	r.decodeJSON(t, &st)
	if st.Domain != "pay.example.com" || st.Auth == nil || st.Auth.Provider != "jwt" || st.Auth.Issuer != "" || st.Auth.ClientID != "" {
		t.Fatalf("setup = %s", r.Body)
	}
	if csp := e.do("GET", "/", nil).expect(t, 200).Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self';") || !strings.Contains(csp, "form-action 'self';") {
		t.Fatalf("password instance: CSP %q", csp)
	}

	const issuer = "https://ID.example.com:8443/realms/hearth"
	oidc := newEnv(t, storetest.SQLite(t), func(c *config.Config, d *api.Deps) {
		c.Auth.Provider = "oidc"
		c.Auth.OIDC.Issuer = issuer
		c.Auth.OIDC.Audience = oidcAudience
		c.Auth.OIDC.ClientID = "hearth-dashboard"
		c.Auth.OIDC.RolesClaim = "groups"
		d.OIDC = auth.NewOIDC(auth.OIDCConfig{Issuer: issuer, Audience: oidcAudience})
	})
	st = setupAnswer{}
	r = oidc.do("GET", "/v1/system/setup", nil).expect(t, 200)
	r.decodeJSON(t, &st)
	if !st.SignUpComplete || st.Domain != "localhost:3000" || st.Auth == nil || st.Auth.Provider != "oidc" || st.Auth.Issuer != issuer ||
		st.Auth.Audience != oidcAudience || st.Auth.ClientID != "hearth-dashboard" || st.Auth.Scopes != "openid" ||
		st.Auth.Roles != "groups" || st.Auth.Admin != "admin" {
		t.Fatalf("oidc setup = %s", r.Body)
	}
	csp := oidc.do("GET", "/", nil).expect(t, 200).Header.Get("Content-Security-Policy")
	for _, want := range []string{"connect-src 'self' https://id.example.com:8443;", "form-action 'self' https://id.example.com:8443;",
		"default-src 'none';", "script-src 'self';", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("oidc instance: CSP %q lacks %q", csp, want)
		}
	}
	if strings.Count(csp, "example.com") != 2 {
		t.Errorf("oidc instance: CSP %q names the provider elsewhere", csp)
	}

	// Without a client id the dashboard cannot sign in there: nothing
	// more is allowed.
	noClient := newOIDCEnv(t, storetest.SQLite(t), issuer)
	if csp := noClient.do("GET", "/", nil).expect(t, 200).Header.Get("Content-Security-Policy"); strings.Contains(csp, "example.com") {
		t.Errorf("oidc instance without client_id: CSP %q", csp)
	}
}

// While the server drains (Deps.Draining), health answers 503 saying so
// and readiness 503 draining; before, both answer as usual.
func TestHealthAndReadinessWhileDraining(t *testing.T) {
	t.Parallel()
	var draining atomic.Bool
	e := newEnv(t, storetest.SQLite(t), func(_ *config.Config, d *api.Deps) { d.Draining = draining.Load })
	e.do("GET", "/v1/system/ready", nil).expect(t, 204)
	var h map[string]any
	e.do("GET", "/v1/system/health", nil).expect(t, 200).decodeJSON(t, &h)
	if _, ok := h["draining"]; ok || h["is_healthy"] != true {
		t.Fatalf("health before draining: %v", h)
	}

	draining.Store(true)
	h = nil
	e.do("GET", "/v1/system/health", nil).expect(t, 503).decodeJSON(t, &h)
	if h["draining"] != true || h["is_healthy"] != false || h["database"] != "Operational" {
		t.Fatalf("health while draining: %v", h)
	}
	e.do("GET", "/v1/system/ready", nil).problemIs(t, 503, "draining")
}
