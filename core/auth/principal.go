package auth

import (
	"context"

	"github.com/hearthwallet/hearth/core/budget"
)

// AdminUserID is the user id of the admin who signs in with the password.
const AdminUserID = "admin"

// Method says how a principal authenticated.
type Method string

// The authentication methods.
const (
	MethodJWT    Method = "jwt"
	MethodOIDC   Method = "oidc"
	MethodAPIKey Method = "api_key"
)

// Principal is an authenticated caller: a user, the scopes it holds for this
// request, and whether it may use the admin routes.
type Principal struct {
	UserID string
	Scopes Scopes
	// Admin is true for the admin user's own token and the admin's own API keys.
	Admin  bool
	Method Method
	// KeyID is the API key's id when Method is MethodAPIKey.
	KeyID string
	// Budgeted is true for an API key with a spending budget, which every
	// payment it makes counts against (ledger.Budget); Budget is how that
	// budget renews. A cached principal carries them; a change of the
	// key's budget (KeyChange) clears the cache, and a payment made with a
	// principal cached before it is refused by the ledger's charge when
	// the renewal it names is no longer the key's.
	Budgeted bool
	Budget   budget.Renewal
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal in ctx, or nil.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
