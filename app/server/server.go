// Package server serves the HTTP API over an application (app.App): it is
// apart from app so that what builds an App without serving it (the
// plugin authors' harness) does not build the API.
package server

import (
	"context"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/core/auth"
)

// pinger is a node that can say whether it is reachable (the health check).
type pinger interface {
	Ping(ctx context.Context) error
}

// Deps are the API's dependencies over a: its configuration, accounts,
// ledger, plugins and live events, the node's health check, and OIDC
// sign-in when auth.provider is "oidc". version and buildTime are the
// binary's.
func Deps(a *app.App, version, buildTime string) api.Deps {
	d := api.Deps{
		Config:    a.Config,
		DB:        a.DB,
		Tokens:    a.Tokens,
		Keys:      a.Keys,
		Wallets:   a.Wallets,
		Ledger:    a.Ledger,
		Plugins:   a.Registry,
		Log:       a.Log,
		Version:   version,
		BuildTime: buildTime,
		Metrics:   a.Metrics.HTTP(),
	}
	if a.Metrics != nil {
		d.Stats = a.Metrics
	}
	if a.Hub != nil {
		d.Events = a.Hub
	}
	if p, ok := a.Node.(pinger); ok {
		d.Checks = map[string]func(context.Context) error{"ln_provider": p.Ping}
	}
	if o := a.Config.Auth.OIDC; a.Config.Auth.Provider == "oidc" {
		d.OIDC = auth.NewOIDC(auth.OIDCConfig{Issuer: o.Issuer, Audience: o.Audience, RolesClaim: o.RolesClaim, AdminRole: o.AdminRole})
	}
	return d
}

// New is the API over a.
func New(a *app.App, version, buildTime string) *api.Server {
	return api.New(Deps(a, version, buildTime))
}
