package api

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"
)

type healthResponse struct {
	// Database is Operational or Unavailable.
	Database string `json:"database"`
	// LnProvider is the Lightning node's state, when a node is configured.
	LnProvider string `json:"ln_provider,omitempty"`
	IsHealthy  bool   `json:"is_healthy"`
}

type versionResponse struct {
	Version   string `json:"version"`
	BuildTime string `json:"build_time"`
}

const (
	operational = "Operational"
	unavailable = "Unavailable"
)

func (s *Server) getSetup(w http.ResponseWriter, req bunrouter.Request) error {
	st, err := s.accounts.Setup(req.Context())
	if err != nil {
		return err
	}
	if s.oidc != nil {
		// With OIDC the identity provider owns sign-up: nothing to do here.
		st.SignUpComplete = true
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (s *Server) markWelcomeComplete(w http.ResponseWriter, req bunrouter.Request) error {
	if err := s.accounts.MarkWelcomeComplete(req.Context()); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) health(w http.ResponseWriter, req bunrouter.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), 3*time.Second)
	defer cancel()
	h := healthResponse{Database: operational, IsHealthy: true}
	if err := s.db.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "health: database unreachable", "err", err)
		h.Database, h.IsHealthy = unavailable, false
	}
	if check := s.checks["ln_provider"]; check != nil {
		h.LnProvider = operational
		if err := check(ctx); err != nil {
			s.log.WarnContext(ctx, "health: node unreachable", "err", err)
			h.LnProvider, h.IsHealthy = unavailable, false
		}
	}
	status := http.StatusOK
	if !h.IsHealthy {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
	return nil
}

func (s *Server) ready(w http.ResponseWriter, _ bunrouter.Request) error {
	// The server is built only after migrations ran, and no node sync
	// exists yet, so a server that answers is ready.
	return noContent(w)
}

func (s *Server) getVersion(w http.ResponseWriter, _ bunrouter.Request) error {
	writeJSON(w, http.StatusOK, versionResponse{Version: s.version, BuildTime: s.buildTime})
	return nil
}
