// Package auth decides who is calling and what they may do: permission
// scopes, principals, the admin password, JWT sign-in tokens, OIDC bearer
// tokens and API keys.
package auth
