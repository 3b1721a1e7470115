// Package apiserver serves the real HTTP API over a plugintest.Env, for
// the HTTP tests of built-in plugins (plugins may not import the api
// package, even in tests). It is apart from plugintest so that WebAssembly
// plugin authors' tests do not build the whole API.
package apiserver

import (
	"net/http/httptest"

	"github.com/hearthwallet/hearth/api"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/plugintest"
)

// Server is the real HTTP API over an Env, with its built-ins' routes:
// what a built-in plugin's tests call as clients and outside wallets do
// (plugins may not import the api package, even in tests).
type Server struct {
	*httptest.Server
	// Tokens issues tokens of any user and scopes (Issue).
	Tokens *auth.Tokens
}

// New starts the API over e on srv (an unstarted httptest server, whose
// address a test may need in cfg first; with TLS when srv.TLS is set) with
// configuration cfg; it stops when the test ends.
func New(e *plugintest.Env, srv *httptest.Server, cfg config.Config) *Server {
	e.T.Helper()
	d := server.Deps(e.App, "test", "now")
	d.Config = cfg
	srv.Config.Handler = api.New(d)
	if srv.TLS != nil {
		srv.StartTLS() // behind TLS: a public_url of https://127.0.0.1:port, which httptest's certificate names
	} else {
		srv.Start()
	}
	e.T.Cleanup(srv.Close)
	return &Server{Server: srv, Tokens: d.Tokens}
}
