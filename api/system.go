package api

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
)

type healthResponse struct {
	// Database is Operational or Unavailable.
	Database string `json:"database"`
	// LnProvider is the Lightning node's state, when a node is configured.
	LnProvider string `json:"ln_provider,omitempty"`
	// Draining is true while the server shuts down: it finishes the
	// requests it has and wants no new ones.
	Draining  bool `json:"draining,omitempty"`
	IsHealthy bool `json:"is_healthy"`
}

type versionResponse struct {
	Version   string `json:"version"`
	BuildTime string `json:"build_time"`
}

const (
	operational = "Operational"
	unavailable = "Unavailable"
)

// setupResponse is what a client needs before anyone signs in: the
// first-run flags, and how this instance signs people in and names its
// Lightning Addresses. Everything in it is public.
type setupResponse struct {
	auth.Setup
	// Domain is the part after @ of this instance's Lightning Addresses
	// (the domain setting).
	Domain string `json:"domain,omitempty"`
	// Auth says how people sign in.
	Auth *setupAuth `json:"auth,omitempty"`
}

// setupAuth is how people sign in: with the admin's password ("jwt"), or
// at an OpenID Connect provider ("oidc"), where the dashboard is the public
// client client_id (authorization code flow with PKCE; redirect URI the
// dashboard's own URL) and asks for scopes; the bearer token Hearth accepts
// is one whose "aud" holds audience, and admin_role in its roles_claim makes
// the admin (the dashboard offers the admin's screens by it; the server
// decides).
type setupAuth struct {
	Provider   string `json:"provider"`
	Issuer     string `json:"issuer,omitempty"`
	Audience   string `json:"audience,omitempty"`
	ClientID   string `json:"client_id,omitempty"`
	Scopes     string `json:"scopes,omitempty"`
	RolesClaim string `json:"roles_claim,omitempty"`
	AdminRole  string `json:"admin_role,omitempty"`
}

func (s *Server) getSetup(w http.ResponseWriter, req bunrouter.Request) error {
	st, err := s.accounts.Setup(req.Context())
	if err != nil {
		return err
	}
	resp := setupResponse{Setup: st, Domain: s.cfg.Domain, Auth: &setupAuth{Provider: "jwt"}}
	if s.oidc != nil {
		// With OIDC the identity provider owns sign-up: nothing to do here.
		resp.SignUpComplete = true
		o := s.cfg.Auth.OIDC
		resp.Auth = &setupAuth{Provider: "oidc", Issuer: o.Issuer, Audience: o.Audience, ClientID: o.ClientID,
			RolesClaim: o.RolesClaim, AdminRole: o.AdminRole}
		if resp.Auth.RolesClaim == "" {
			resp.Auth.RolesClaim = "roles"
		}
		if resp.Auth.AdminRole == "" {
			resp.Auth.AdminRole = "admin"
		}
		if o.ClientID != "" {
			resp.Auth.Scopes = o.Scopes
			if resp.Auth.Scopes == "" {
				resp.Auth.Scopes = "openid"
			}
		}
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

func (s *Server) markWelcomeComplete(w http.ResponseWriter, req bunrouter.Request) error {
	if err := s.accounts.MarkWelcomeComplete(req.Context()); err != nil {
		return err
	}
	return noContent(w)
}

// checkTimeout bounds the health and readiness checks.
const checkTimeout = 3 * time.Second

// checkNode runs the node's health check (reachable and synced), if a node
// is configured: configured is false when none is.
func (s *Server) checkNode(ctx context.Context) (configured bool, err error) {
	check := s.checks["ln_provider"]
	if check == nil {
		return false, nil
	}
	if err := check(ctx); err != nil {
		s.log.WarnContext(ctx, "node unreachable or not synced", "err", err)
		return true, err
	}
	return true, nil
}

func (s *Server) health(w http.ResponseWriter, req bunrouter.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), checkTimeout)
	defer cancel()
	h := healthResponse{Database: operational, IsHealthy: true}
	if err := s.db.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "health: database unreachable", "err", err)
		h.Database, h.IsHealthy = unavailable, false
	}
	if configured, err := s.checkNode(ctx); configured {
		h.LnProvider = operational
		if err != nil {
			h.LnProvider, h.IsHealthy = unavailable, false
		}
	}
	if s.isDraining() {
		h.Draining, h.IsHealthy = true, false
	}
	status := http.StatusOK
	if !h.IsHealthy {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
	return nil
}

// errNotReady answers /v1/system/ready while a dependency is not ready.
var errNotReady = fault.New(fault.Unavailable, "not_ready", "Not ready: the Lightning node is unreachable or not synced to the chain")

// errDraining answers /v1/system/ready while the server shuts down.
var errDraining = fault.New(fault.Unavailable, "draining", "Shutting down: send requests to another replica")

// isDraining reports whether the server is shutting down (Deps.Draining).
func (s *Server) isDraining() bool { return s.draining != nil && s.draining() }

// ready answers 204 once the migrations ran (the server is built only
// after them) and the node is reachable and synced (its health check),
// and until the server begins to shut down.
func (s *Server) ready(w http.ResponseWriter, req bunrouter.Request) error {
	if s.isDraining() {
		return errDraining
	}
	ctx, cancel := context.WithTimeout(req.Context(), checkTimeout)
	defer cancel()
	if _, err := s.checkNode(ctx); err != nil {
		return errNotReady
	}
	return noContent(w)
}

func (s *Server) getVersion(w http.ResponseWriter, _ bunrouter.Request) error {
	writeJSON(w, http.StatusOK, versionResponse{Version: s.version, BuildTime: s.buildTime})
	return nil
}
