package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/lib/metrics"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	walletKey
)

var (
	idPrefix  = newIDPrefix()
	idCounter atomic.Uint64
)

func newIDPrefix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// statusRecorder remembers the status for the access log, and whether
// anything was written; route is the metrics of the route that served
// the request, when one did (metrics.go).
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	route  *metrics.Route
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status, r.wrote = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// outermost wraps the router: a request id, the checks of the edge
// (edge.go), the body size limit, the recovery from panics and the access
// log (debug level; 5xx are logged by writeError at error level).
func (s *Server) outermost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := idPrefix + "-" + strconv.FormatUint(idCounter.Add(1), 16)
		w.Header().Set("X-Request-Id", id)
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		r = r.WithContext(ctx)
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		if s.metrics != nil {
			defer s.observe(rec, r, start) // after recovered has answered a panic
		}
		defer s.recovered(rec, r, id)
		limit := s.bodyLimit(r)
		if err := checkEdge(r, limit); err != nil {
			writeError(rec, r, err)
		} else {
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, limit)
			}
			next.ServeHTTP(rec, r)
		}
		if s.log.Enabled(ctx, slog.LevelDebug) {
			s.log.DebugContext(ctx, "request", "method", r.Method, "path", r.URL.Path,
				"status", rec.status, "duration", time.Since(start), "request_id", id)
		}
	})
}

// authenticate resolves the caller's principal from Api-Key or a bearer
// token, and the id of the caller's wallet, which it creates on the
// caller's first request (an API key's lookup finds it already).
func (s *Server) authenticate(ctx context.Context, r *http.Request) (*auth.Principal, string, error) {
	var p *auth.Principal
	var walletID string
	var err error
	if key := r.Header.Get("Api-Key"); key != "" {
		p, walletID, err = s.keys.Authenticate(ctx, key)
	} else if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		switch {
		case auth.IsAPIKey(token) || auth.IsAPIKey(h):
			return nil, "", auth.ErrKeyAsBearer
		case !ok || !strings.EqualFold(scheme, "Bearer") || token == "":
			return nil, "", auth.ErrInvalidToken.Reasonf("Invalid Authorization header: expected Bearer <token>")
		}
		p, err = s.verifyBearer(ctx, token)
	} else {
		return nil, "", auth.ErrMissingCredentials
	}
	if err != nil {
		return nil, "", err
	}
	if walletID == "" {
		w, err := s.wallets.Ensure(ctx, p.UserID)
		if err != nil {
			return nil, "", err
		}
		walletID = w.ID
	}
	return p, walletID, nil
}

func (s *Server) verifyBearer(ctx context.Context, token string) (*auth.Principal, error) {
	if s.oidc != nil {
		return s.oidc.Verify(ctx, token)
	}
	return s.tokens.Verify(ctx, token)
}

// guard wraps a route's handler with its access rule: authentication, the
// scope, and the admin principal for admin routes.
func (s *Server) guard(rt *route, next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	if rt.access == public {
		return next
	}
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		ctx := req.Context()
		p, walletID, err := s.authenticate(ctx, req.Request)
		if err != nil {
			return err
		}
		if rt.scope != 0 && !p.Scopes.Has(rt.scope) {
			return auth.ErrForbidden.Reasonf("Missing permission: %s", rt.scope)
		}
		if rt.access == admin && !p.Admin {
			return auth.ErrAdminOnly
		}
		ctx = auth.WithPrincipal(ctx, p)
		ctx = context.WithValue(ctx, walletKey, walletID)
		return next(w, req.WithContext(ctx))
	}
}

// callerWallet returns the id of the authenticated caller's wallet.
func callerWallet(ctx context.Context) string {
	id, _ := ctx.Value(walletKey).(string)
	return id
}

// rateLimited applies the sign-in limiter of the client's address.
func (s *Server) rateLimited(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		if wait := s.signInLimit.take(s.clientAddr(req.Request)); wait > 0 {
			secs := int((wait + time.Second - 1) / time.Second)
			return &errRetryAfter{fault: errRateLimited, seconds: secs}
		}
		return next(w, req)
	}
}

func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.HTTP.TrustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			return strings.TrimSpace(first)
		}
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}
