package auth

import "github.com/hearthwallet/hearth/core/fault"

// The errors of authentication and authorisation.
var (
	ErrMissingCredentials = fault.New(fault.Unauthenticated, "missing_credentials", "Missing credentials: send Authorization: Bearer <token> or Api-Key: <key>")
	ErrBadCredentials     = fault.New(fault.Unauthenticated, "invalid_credentials", "Invalid credentials")
	ErrInvalidToken       = fault.New(fault.Unauthenticated, "invalid_token", "Invalid or expired token")
	ErrInvalidAPIKey      = fault.New(fault.Unauthenticated, "invalid_api_key", "Invalid, expired or revoked API key")
	ErrKeyAsBearer        = fault.New(fault.Unauthenticated, "invalid_token", "API keys go in the Api-Key header: send Api-Key: hk_…, not Authorization: Bearer hk_… (that header takes sign-in tokens)")
	ErrForbidden          = fault.New(fault.Forbidden, "forbidden", "Missing permission")
	ErrAdminOnly          = fault.New(fault.Forbidden, "admin_only", "This route acts on any wallet and needs the admin")
	ErrAlreadySignedUp    = fault.New(fault.Conflict, "already_signed_up", "The admin user has already signed up")
	ErrWrongPassword      = fault.New(fault.Unprocessable, "wrong_password", "The current password is wrong")
	ErrWeakPassword       = fault.New(fault.Unprocessable, "weak_password", "The password must have at least 8 characters")
	ErrPasswordAuthOff    = fault.New(fault.NotAllowed, "password_auth_disabled", "Password sign-in is not available with the OIDC auth provider")
	ErrProviderDown       = fault.New(fault.Unavailable, "identity_provider_unavailable", "The identity provider cannot be reached")
)
