package metrics

import (
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics listener serves the scrape.
const Path = "/metrics"

// Metrics is one instance's registry and the families counted into it.
// A nil *Metrics is metrics off: its parts are nil, and so count nothing.
type Metrics struct {
	reg     *prometheus.Registry
	ledger  *Ledger
	http    *HTTP
	plugins *Plugins
	own     *PluginOwn
	sends   *Sends
	relays  *Relays

	// view holds the collectors that Stats reads (the node's and the
	// outbox's, also in reg); history is the payments' (history.go);
	// born is when the counters began.
	view    *prometheus.Registry
	history *history
	born    time.Time
}

// New returns a registry holding Hearth's families, the Go runtime's and
// the process's, and hearth_build_info with version.
func New(version string) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg:     reg,
		ledger:  newLedger(reg),
		http:    newHTTP(reg),
		plugins: newPlugins(reg),
		own:     newPluginOwn(reg),
		sends:   newSends(reg),
		relays:  newRelays(reg),
		view:    prometheus.NewRegistry(),
		history: &history{},
		born:    time.Now(),
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "hearth_build_info",
		Help: "Always 1: the version of Hearth and of Go that this process runs.",
	}, []string{"version", "goversion"})
	build.WithLabelValues(version, runtime.Version()).Set(1)
	reg.MustRegister(build,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the registry, for collectors of other parts and for tests.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Registerer is the registry for the families a feature keeps in its own
// plugin (the webhooks' deliveries: plugins/webhooks/metrics.go), which
// its plugin registers there; nil when m is (metrics off: the plugin
// counts nothing).
func (m *Metrics) Registerer() prometheus.Registerer {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the scrape in the Prometheus text format (or in
// OpenMetrics when asked). A collector that fails (a node that does not
// answer) leaves its own series out; the rest are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Mux serves Handler at Path and 404 elsewhere: the metrics listener's
// whole handler.
func (m *Metrics) Mux() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, m.Handler())
	return mux
}

// Ledger is the ledger's families; nil when m is.
func (m *Metrics) Ledger() *Ledger {
	if m == nil {
		return nil
	}
	return m.ledger
}

// HTTP is the API's families; nil when m is.
func (m *Metrics) HTTP() *HTTP {
	if m == nil {
		return nil
	}
	return m.http
}

// Plugins is the WebAssembly plugins' families; nil when m is.
func (m *Metrics) Plugins() *Plugins {
	if m == nil {
		return nil
	}
	return m.plugins
}

// Relays is the family of the events published to Nostr relays; nil
// when m is.
func (m *Metrics) Relays() *Relays {
	if m == nil {
		return nil
	}
	return m.relays
}
