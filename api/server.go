package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/web"
)

// Deps is what the HTTP layer is built from.
type Deps struct {
	Config  config.Config
	DB      *store.DB
	Tokens  *auth.Tokens
	OIDC    *auth.OIDC // set when auth.provider is "oidc"
	Keys    *auth.Keys
	Wallets *wallet.Service
	Ledger  Ledger
	// Plugins is the plugin registry; nil answers 503 on plugin routes.
	Plugins Plugins
	// Events is the live stream of events; nil answers 503 on its routes.
	Events Events
	Log    *slog.Logger
	// Version and BuildTime are reported by GET /v1/system/version.
	Version, BuildTime string
	// Checks are extra health checks, such as the Lightning node's, by name
	// of the field in the health answer.
	Checks map[string]func(context.Context) error
	// Draining, when set, says whether the server is shutting down: health
	// and readiness then answer 503, so that load balancers send no more
	// requests here.
	Draining func() bool
	// Metrics, when set, times every request by route template (metrics.go).
	Metrics *metrics.HTTP
	// Stats, when set, answers GET /v1/system/stats (stats.go); nil
	// answers that metrics are off.
	Stats Stats
}

// Server serves the REST API.
type Server struct {
	cfg         config.Config
	db          *store.DB
	accounts    *auth.Accounts
	tokens      *auth.Tokens
	oidc        *auth.OIDC
	keys        *auth.Keys
	wallets     *wallet.Service
	ledger      Ledger
	plugins     Plugins
	events      Events
	log         *slog.Logger
	version     string
	buildTime   string
	checks      map[string]func(context.Context) error
	draining    func() bool
	signInLimit *limiter
	dashboard   *web.Handler
	metrics     *metrics.HTTP
	stats       Stats

	routes  []*route
	doc     openAPIDoc
	handler http.Handler
}

// New builds the server and its router.
func New(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	s := &Server{
		cfg:         d.Config,
		db:          d.DB,
		tokens:      d.Tokens,
		oidc:        d.OIDC,
		keys:        d.Keys,
		wallets:     d.Wallets,
		ledger:      d.Ledger,
		plugins:     d.Plugins,
		events:      d.Events,
		log:         d.Log,
		version:     d.Version,
		buildTime:   d.BuildTime,
		checks:      d.Checks,
		draining:    d.Draining,
		signInLimit: newLimiter(d.Config.Auth.SignInRate, d.Config.Auth.SignInBurst),
		dashboard:   dashboardFor(d.Config),
		metrics:     d.Metrics,
		stats:       d.Stats,
	}
	s.accounts = auth.NewAccounts(d.DB, d.Tokens)
	s.routes = s.routeTable()
	allow := map[string][]string{} // route pattern → its methods, for 405's Allow
	router := bunrouter.New(
		bunrouter.Use(handleErrors),
		bunrouter.WithNotFoundHandler(s.notFound), // the dashboard, else 404 (web.go)
		bunrouter.WithMethodNotAllowedHandler(func(w http.ResponseWriter, req bunrouter.Request) error {
			if methods := allow[req.Route()]; len(methods) > 0 {
				w.Header().Set("Allow", strings.Join(methods, ", "))
			}
			writeError(w, req.Request, errMethodNotAllow)
			return nil
		}),
	)
	for _, rt := range s.routes {
		allow[rt.path] = append(allow[rt.path], rt.method)
		h := rt.handler
		if rt.limited {
			h = s.rateLimited(h)
		}
		router.Handle(rt.method, rt.path, s.timed(rt, s.guard(rt, h)))
	}
	s.handler = s.outermost(router)
	return s
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}
