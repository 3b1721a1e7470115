package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/host"
)

// The catalog of plugins (plugins.catalog): listed with what is installed,
// and installed or updated from by name, or from a module's URL.

func (s *Server) pluginCatalog(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	list, err := s.plugins.Catalog(req.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) installFrom(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	var body host.InstallSource
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.Name == "" && body.URL == "" {
		return required("name")
	}
	// Downloading and compiling the module may outlast the server's
	// write timeout.
	if err := longAnswer(w); err != nil {
		return err
	}
	info, updated, err := s.plugins.InstallFrom(req.Context(), body)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if updated {
		status = http.StatusOK
	}
	writeJSON(w, status, info)
	return nil
}
