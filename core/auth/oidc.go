package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
)

// OIDCConfig says which issuer's tokens to accept.
type OIDCConfig struct {
	Issuer     string
	Audience   string
	RolesClaim string
	AdminRole  string
}

// OIDC verifies bearer tokens issued by an OpenID Connect provider against
// the provider's published keys (JWKS). The discovery document is fetched on
// first use and again after a failure, so Hearth starts while the provider
// is down and recovers when it returns.
type OIDC struct {
	cfg OIDCConfig

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// NewOIDC returns a verifier for cfg.
func NewOIDC(cfg OIDCConfig) *OIDC {
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = "roles"
	}
	if cfg.AdminRole == "" {
		cfg.AdminRole = "admin"
	}
	return &OIDC{cfg: cfg}
}

// Verify checks the token's signature, issuer, audience and expiry and
// returns its principal: sub is the user, the permissions claim the scopes
// (names Hearth does not know are ignored), and the admin role makes the
// admin.
func (o *OIDC) Verify(ctx context.Context, raw string) (*Principal, error) {
	v, err := o.load(ctx)
	if err != nil {
		slog.WarnContext(ctx, "oidc discovery failed", "issuer", o.cfg.Issuer, "err", err)
		return nil, ErrProviderDown
	}
	tok, err := v.Verify(ctx, raw)
	if err != nil {
		return nil, ErrInvalidToken
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		return nil, ErrInvalidToken
	}
	p := &Principal{UserID: tok.Subject, Method: MethodOIDC}
	if p.UserID == "" {
		return nil, ErrInvalidToken
	}
	for _, name := range stringList(claims["permissions"]) {
		if s, ok := ParseScope(name); ok {
			p.Scopes |= Scopes(s)
		}
	}
	for _, role := range stringList(claims[o.cfg.RolesClaim]) {
		if role == o.cfg.AdminRole {
			p.Admin = true
		}
	}
	return p, nil
}

func (o *OIDC) load(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.verifier != nil {
		return o.verifier, nil
	}
	// The provider keeps this context for refreshing its keys later, so it
	// must outlive the request that happened to load it.
	provider, err := oidc.NewProvider(context.WithoutCancel(ctx), o.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("discovering %s: %w", o.cfg.Issuer, err)
	}
	o.verifier = provider.Verifier(&oidc.Config{ClientID: o.cfg.Audience})
	return o.verifier, nil
}

// stringList reads a claim that is a string or an array of strings.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
