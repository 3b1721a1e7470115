package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/web"
)

// dashboard is the web dashboard (package web), built once.
var dashboard = web.New()

// notFound answers what no route matched: the dashboard's page (/) and
// files (/assets/…) for GET and HEAD, and the JSON 404 for anything else
// (a missing file under /assets/ included).
// Being the fallback, the dashboard never shadows a route of the API.
func notFound(w http.ResponseWriter, req bunrouter.Request) error {
	if (req.Method == http.MethodGet || req.Method == http.MethodHead) && dashboard.Has(req.URL.Path) {
		dashboard.ServeHTTP(w, req.Request)
		return nil
	}
	return errRouteNotFound
}
