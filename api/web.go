package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/web"
)

// dashboard is the web dashboard (package web), built once; a server
// whose dashboard signs in at an OpenID Connect provider serves it with
// that provider's origin in its policy (dashboardFor).
var dashboard = web.New()

// dashboardFor returns the dashboard as cfg serves it.
func dashboardFor(cfg config.Config) *web.Handler {
	if cfg.Auth.Provider == "oidc" && cfg.Auth.OIDC.ClientID != "" {
		return dashboard.WithOIDC(cfg.Auth.OIDC.Issuer)
	}
	return dashboard
}

// notFound answers what no route matched: the dashboard's page (/) and
// files (/assets/…) for GET and HEAD, and the JSON 404 for anything else
// (a missing file under /assets/ included).
// Being the fallback, the dashboard never shadows a route of the API.
func (s *Server) notFound(w http.ResponseWriter, req bunrouter.Request) error {
	if (req.Method == http.MethodGet || req.Method == http.MethodHead) && s.dashboard.Has(req.URL.Path) {
		s.dashboard.ServeHTTP(w, req.Request)
		return nil
	}
	return errRouteNotFound
}
