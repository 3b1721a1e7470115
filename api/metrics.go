package api

import (
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"
)

// With Deps.Metrics, every request is timed by the route that served it:
// its template as the route table has it (/v1/me/payments/:id, never the
// path, which carries ids), its method and the status answered. The
// route's handle is made once, when the router is built; a request that
// no route served (the dashboard's files, 404, 405) counts as
// metrics.Unmatched. The metrics themselves are served on a listener of
// their own, never here.

// timed marks the requests that rt serves as its own, for observe.
func (s *Server) timed(rt *route, next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	if s.metrics == nil {
		return next
	}
	m := s.metrics.Route(rt.method, rt.path)
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		if rec, ok := w.(*statusRecorder); ok {
			rec.route = m
		}
		return next(w, req)
	}
}

// observe counts the request that outermost answered with rec, begun at
// start.
func (s *Server) observe(rec *statusRecorder, r *http.Request, start time.Time) {
	m := rec.route
	if m == nil {
		m = s.metrics.Unmatched(r.Method)
	}
	m.Observe(rec.status, time.Since(start))
}
