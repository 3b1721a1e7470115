package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// Plugins is what the HTTP layer needs of the plugin registry.
type Plugins interface {
	List() []host.Info
	Get(name string) (*host.Plugin, error)
	Install(ctx context.Context, manifest, wasm []byte, pin string) (*host.Info, error)
	Catalog(ctx context.Context) ([]host.CatalogEntry, error)
	InstallFrom(ctx context.Context, src host.InstallSource) (info *host.Info, updated bool, err error)
	Enable(ctx context.Context, by *auth.Principal, name string, scopes []string, walletID string) (*host.Info, error)
	Disable(ctx context.Context, name string) (*host.Info, error)
	Configure(ctx context.Context, name string, cfg []byte) (*host.Info, error)
	Remove(ctx context.Context, name string) error
	Logs(name string, n int) ([]host.LogEntry, error)
	RouteAccess(name, method, path string) (public bool, scope auth.Scope, err error)
	WellKnown(method, path string) (name string, err error)
	Serve(ctx context.Context, name string, req host.PluginRequest) (*host.PluginResponse, error)
	CheckHealth(ctx context.Context)
	// TagFields are the fields the invoice records show built-ins' tags
	// under (host.Builtin.TagField).
	TagFields() []string
}

var errNoPlugins = fault.New(fault.Unavailable, "plugins_unavailable", "This server runs no plugin host")

type installRequest struct {
	// Manifest is the plugin's manifest (a JSON object).
	Manifest json.RawMessage `json:"manifest"`
	// Wasm is the module, base64.
	Wasm *string `json:"wasm"`
	// SHA256 pins the module: hex of its SHA-256.
	SHA256 *string `json:"sha256"`
}

type enableRequest struct {
	// Scopes to grant: a subset of those the manifest declares, and of
	// the caller's own permission scopes.
	Scopes []string `json:"scopes"`
	// WalletID is the wallet the plugin acts on and hears events of.
	WalletID *string `json:"wallet_id,omitempty"`
}

func (s *Server) listPlugins(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	s.plugins.CheckHealth(req.Context())
	writeJSON(w, http.StatusOK, s.plugins.List())
	return nil
}

func (s *Server) getPlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	p, err := s.plugins.Get(req.Param("name"))
	if err != nil {
		return err
	}
	s.plugins.CheckHealth(req.Context())
	writeJSON(w, http.StatusOK, p.Info())
	return nil
}

// installWriteTimeout bounds the answer of a plugin's install, its
// compilation included, and of its enable, which starts its first
// instance.
const installWriteTimeout = 5 * time.Minute

// longAnswer gives the answer being written its own deadline, longer than
// the server's write timeout: cut there, the client would see its
// connection close with no answer (EOF).
func longAnswer(w http.ResponseWriter) error {
	if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(installWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("extending the answer's write deadline: %w", err)
	}
	return nil
}

func (s *Server) installPlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	var body installRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	switch {
	case len(body.Manifest) == 0:
		return required("manifest")
	case body.Wasm == nil:
		return required("wasm")
	case body.SHA256 == nil:
		return required("sha256")
	}
	wasm, err := base64.StdEncoding.DecodeString(*body.Wasm)
	if err != nil {
		return fault.Invalidf("wasm must be base64")
	}
	// Installing compiles the module, which on a busy machine may outlast
	// the server's write timeout.
	if err := longAnswer(w); err != nil {
		return err
	}
	info, err := s.plugins.Install(req.Context(), body.Manifest, wasm, *body.SHA256)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, info)
	return nil
}

func (s *Server) enablePlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	var body enableRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	walletID := ""
	if body.WalletID != nil {
		id, err := walletParam(body.WalletID)
		if err != nil {
			return err
		}
		walletID = id
	}
	// Enabling starts an instance, whose runtime's start may outlast the
	// server's write timeout on a busy machine.
	if err := longAnswer(w); err != nil {
		return err
	}
	info, err := s.plugins.Enable(req.Context(), auth.FromContext(req.Context()), req.Param("name"), body.Scopes, walletID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

func (s *Server) disablePlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	info, err := s.plugins.Disable(req.Context(), req.Param("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

func (s *Server) configurePlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	var cfg map[string]json.RawMessage
	if err := decode(req, &cfg); err != nil {
		return err
	}
	raw, _ := json.Marshal(cfg)
	info, err := s.plugins.Configure(req.Context(), req.Param("name"), raw)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

func (s *Server) removePlugin(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	if err := s.plugins.Remove(req.Context(), req.Param("name")); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Server) pluginLogs(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	n := 100
	if v := req.URL.Query().Get("limit"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 1000 {
			return fault.Invalidf("limit must be between 1 and 1000")
		}
	}
	logs, err := s.plugins.Logs(req.Param("name"), n)
	if err != nil {
		return err
	}
	if logs == nil {
		logs = []host.LogEntry{}
	}
	writeJSON(w, http.StatusOK, logs)
	return nil
}

// maxPluginBody caps a request body forwarded to a plugin.
const maxPluginBody = 1 << 20

// pluginRoute forwards a request under /v1/plugins/{name}/… to the
// plugin's HTTP handler, after the access its manifest declares for the
// route: public, or an authenticated caller holding the route's scope.
func (s *Server) pluginRoute(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	ctx := req.Context()
	name, path := req.Param("name"), "/"+req.Param("path")
	public, scope, err := s.plugins.RouteAccess(name, req.Method, path)
	if err != nil {
		return err
	}
	var caller *host.PluginCaller
	if !public {
		p, walletID, err := s.authenticate(ctx, req.Request)
		if err != nil {
			return err
		}
		if scope != 0 && !p.Scopes.Has(scope) {
			return auth.ErrForbidden.Reasonf("Missing permission: %s", scope)
		}
		caller = host.CallerOf(hostPrincipal(p, walletID))
	}
	return s.forward(w, req, name, path, caller)
}

// wellKnownRoute forwards a request under /.well-known/ to the plugin
// granted its name (host.WellKnown); such routes are public.
func (s *Server) wellKnownRoute(w http.ResponseWriter, req bunrouter.Request) error {
	if s.plugins == nil {
		return errNoPlugins
	}
	path := "/.well-known/" + req.Param("path")
	name, err := s.plugins.WellKnown(req.Method, path)
	if err != nil {
		return err
	}
	return s.forward(w, req, name, path, nil)
}

// forward sends the request to plugin name's HTTP handler as path, with
// its authenticated caller (nil on a public route), and writes its answer.
func (s *Server) forward(w http.ResponseWriter, req bunrouter.Request, name, path string, caller *host.PluginCaller) error {
	ctx := req.Context()
	var body []byte
	var err error
	if req.Body != nil {
		if body, err = io.ReadAll(io.LimitReader(req.Body, maxPluginBody+1)); err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return errBodyTooLarge
			}
			return fault.Invalidf("reading the request body")
		}
		if len(body) > maxPluginBody {
			return errBodyTooLarge
		}
	}
	headers := map[string]string{}
	for _, h := range host.ForwardedHeaders {
		if v := req.Header.Get(h); v != "" {
			headers[h] = v
		}
	}
	headers["X-Request-Id"] = requestID(ctx)
	resp, err := s.plugins.Serve(ctx, name, host.PluginRequest{
		Method: req.Method, Path: path, Query: req.URL.RawQuery, Headers: headers, Body: body, Caller: caller,
	})
	if err != nil {
		if host.IsFault(err) {
			return errPluginFailed
		}
		var ce *host.CallError
		if errors.As(err, &ce) {
			return errPluginFailed.Reasonf("The plugin failed: %s", ce.Message)
		}
		return err
	}
	resp.WriteTo(w)
	return nil
}

var errPluginFailed = fault.New(fault.Unavailable, "plugin_failed", "The plugin failed to answer")
