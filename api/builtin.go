package api

import (
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/host"
)

// Built-in plugins' routes (host.BuiltinRoute) join the route table as
// they are: the same authentication, scope and admin checks, body limit,
// JSON decoding and text checks, errors and OpenAPI entries as Hearth's
// own routes. Only the handler is the built-in's.

// Builtins is a plugin registry whose built-ins serve routes of their own
// (host.Registry).
type Builtins interface {
	Routes() []host.BuiltinRoute
}

// builtinRoutes turns the built-ins' routes, when Deps.Plugins has any,
// into rows of the route table.
func (s *Server) builtinRoutes() []*route {
	b, ok := s.plugins.(Builtins)
	if !ok {
		return nil
	}
	rs := b.Routes()
	out := make([]*route, 0, len(rs))
	limits := map[string]*limiter{}
	for _, hr := range rs {
		var lim *limiter
		if hr.Limit != nil {
			if lim = limits[hr.Limit.Name]; lim == nil {
				lim = newLimiter(hr.Limit.PerMinute, hr.Limit.Burst)
				limits[hr.Limit.Name] = lim
			}
		}
		rt := &route{method: hr.Method, path: routerPath(hr.Path), scope: hr.Scope,
			tag: builtinTag(hr), summary: hr.Summary, body: hr.Body, resp: hr.Resp,
			status: hr.Status, query: hr.Query, handler: s.builtinHandler(hr, lim)}
		switch hr.Access {
		case host.Public:
			rt.access = public
		case host.User:
			rt.access = authed
		default:
			rt.access = admin
		}
		out = append(out, rt)
	}
	return out
}

// builtinHandler decodes the body, names the caller and writes the answer.
// With ErrorBody, it writes its errors itself, in the route's form.
func (s *Server) builtinHandler(hr host.BuiltinRoute, lim *limiter) bunrouter.HandlerFunc {
	h := s.builtinCall(hr, lim)
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		if hr.AnyOrigin {
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		err := h(w, req)
		if err == nil || hr.ErrorBody == nil {
			return err
		}
		status, reason := http.StatusInternalServerError, ""
		if f, ok := fault.As(err); ok {
			if st, known := statusOf[f.Kind]; known {
				status, reason = st, f.Reason
			}
		}
		if reason == "" {
			slog.ErrorContext(req.Context(), "request failed", "method", req.Method, "path", req.URL.Path,
				"request_id", requestID(req.Context()), "err", err)
			reason = "Internal server error (request " + requestID(req.Context()) + ")"
		}
		var ra *errRetryAfter
		if errors.As(err, &ra) {
			w.Header().Set("Retry-After", strconv.Itoa(ra.seconds))
		}
		writeJSON(w, status, hr.ErrorBody(status, reason))
		return nil
	}
}

// builtinCall is the route's work: rate limit, body, caller, handler.
func (s *Server) builtinCall(hr host.BuiltinRoute, lim *limiter) bunrouter.HandlerFunc {
	var body reflect.Type
	if hr.Body != nil {
		body = reflect.TypeOf(hr.Body)
	}
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		ctx := req.Context()
		if lim != nil {
			if wait := lim.take(s.clientAddr(req.Request)); wait > 0 {
				return &errRetryAfter{fault: errRateLimited, seconds: int((wait + time.Second - 1) / time.Second)}
			}
		}
		in := &host.BuiltinRequest{Params: req.Params().Map(), Query: req.URL.Query(), RawQuery: req.URL.RawQuery, Header: req.Header}
		if p := auth.FromContext(ctx); p != nil && hr.Access != host.Public {
			in.Caller = hostPrincipal(p, callerWallet(ctx))
		}
		if body != nil {
			v := reflect.New(body)
			if err := decode(req, v.Interface()); err != nil {
				return err
			}
			in.Body = v.Interface()
		}
		out, err := hr.Handle(ctx, in)
		if err != nil {
			return host.RouteError(err)
		}
		if l, ok := out.(*host.Listed); ok {
			setLinks(w, req, l.Limit, l.Next, l.Prev)
			out = l.Rows
		}
		if out == nil || hr.Status == http.StatusNoContent {
			w.WriteHeader(hr.Status)
			return nil
		}
		writeJSON(w, hr.Status, out)
		return nil
	}
}

// routerPath turns /v1/x/{id} into the router's /v1/x/:id.
func routerPath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			parts[i] = ":" + part[1:len(part)-1]
		}
	}
	return strings.Join(parts, "/")
}

// builtinTag is the OpenAPI tag of a built-in's route: the first segment
// after /v1 (and /me), or "admin" for admin routes.
func builtinTag(hr host.BuiltinRoute) string {
	if hr.Access == host.Admin {
		return "admin"
	}
	seg := strings.Split(strings.TrimPrefix(strings.TrimPrefix(hr.Path, "/v1"), "/me"), "/")
	if len(seg) > 1 && seg[1] != "" {
		return seg[1]
	}
	return "plugins"
}

// hostPrincipal is the caller of a plugin's route as the host sees it: its
// wallet, scopes, key, and the key's budget, which the ledger charges for
// what the plugin pays acting for it.
func hostPrincipal(p *auth.Principal, walletID string) *host.Principal {
	hp := &host.Principal{UserID: p.UserID, WalletID: walletID, Scopes: p.Scopes, Admin: p.Admin, KeyID: p.KeyID}
	if p.Budgeted {
		hp.Budget = &ledger.Budget{KeyID: p.KeyID, Renewal: p.Budget}
	}
	return hp
}
