package metrics

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Unmatched is the route label of a request that matched no route: the
// dashboard's files, 404 and 405 answers.
const Unmatched = "unmatched"

// httpBuckets span an internal payment (about a millisecond) to a slow
// plugin route or an external payment held by the node.
var httpBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// HTTP counts the API's requests: how long each took, by route template
// (never the path itself, which carries ids), method and status code.
type HTTP struct {
	vec       *prometheus.HistogramVec
	unmatched map[string]*Route // by method
}

func newHTTP(reg prometheus.Registerer) *HTTP {
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hearth_http_request_duration_seconds",
		Help:    "Time to answer an API request, by route template, method and status code (a stream's until it ends).",
		Buckets: httpBuckets,
	}, []string{"route", "method", "code"})
	reg.MustRegister(vec)
	h := &HTTP{vec: vec, unmatched: map[string]*Route{}}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions, "other"} {
		h.unmatched[m] = &Route{vec: vec, route: Unmatched, method: m}
	}
	return h
}

// Route returns the handle of one route of the table, template as the
// router has it (/v1/me/payments/:id): made once per route when the
// router is built, so that a request resolves no label.
func (h *HTTP) Route(method, template string) *Route {
	if h == nil {
		return nil
	}
	return &Route{vec: h.vec, route: template, method: method}
}

// Unmatched returns the handle of the requests of method that matched no
// route; a method outside HTTP's own counts as "other", so that a client
// cannot add series.
func (h *HTTP) Unmatched(method string) *Route {
	if h == nil {
		return nil
	}
	if r, ok := h.unmatched[method]; ok {
		return r
	}
	return h.unmatched["other"]
}

// Route is one route's histograms, by status code, each resolved at the
// code's first request.
type Route struct {
	vec           *prometheus.HistogramVec
	route, method string
	codes         [len(knownCodes)]atomic.Pointer[observer]
}

type observer struct{ prometheus.Observer }

// knownCodes are the status codes the API answers; others are resolved
// at each request.
var knownCodes = [...]int{200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 409, 410,
	413, 415, 422, 429, 499, 500, 501, 502, 503, 504}

// codeIndex is code's index in knownCodes, or -1.
func codeIndex(code int) int {
	for i, c := range knownCodes {
		if c == code {
			return i
		}
	}
	return -1
}

// Observe counts one request of the route answered with code after took.
func (r *Route) Observe(code int, took time.Duration) {
	if r == nil {
		return
	}
	i := codeIndex(code)
	if i < 0 {
		r.vec.WithLabelValues(r.route, r.method, strconv.Itoa(code)).Observe(took.Seconds())
		return
	}
	o := r.codes[i].Load()
	if o == nil {
		o = &observer{r.vec.WithLabelValues(r.route, r.method, strconv.Itoa(code))}
		r.codes[i].Store(o)
	}
	o.Observe(took.Seconds())
}
