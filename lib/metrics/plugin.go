package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The calls into a WebAssembly plugin (the label call).
const (
	CallEvent = iota // an event handed to the plugin
	CallHTTP         // a request to one of its routes
)

var callLabels = [...]string{"event", "http"}

// The outcomes of a call (the label outcome).
const (
	OutcomeOK          = iota // answered
	OutcomeError              // its handler reported an error, or the call failed otherwise
	OutcomeFault              // trapped, ran out of time or memory, or broke the ABI: stopped
	OutcomeBusy               // no instance or CPU share free before the deadline
	OutcomeUnavailable        // the plugin was not running, or was stopped during the call
	OutcomeCanceled           // the caller gave up
)

var outcomeLabels = [...]string{"ok", "error", "fault", "busy", "unavailable", "canceled"}

// The kinds of fault (the label kind).
const (
	FaultDeadline = iota // the call's deadline passed
	FaultCPU             // the call used its CPU burst
	FaultTrap            // a trap, an exit (a panic, out of memory) or an ABI violation
)

var faultLabels = [...]string{"deadline", "cpu_burst", "trap"}

// pluginBuckets span an event handler (well under a millisecond) to a
// call stopped at its deadline (2 s by default, up to a minute).
var pluginBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// Plugins counts the calls into WebAssembly plugins, by plugin name.
type Plugins struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	faults   *prometheus.CounterVec
}

func newPlugins(reg prometheus.Registerer) *Plugins {
	p := &Plugins{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_plugin_calls_total",
			Help: "Calls into WebAssembly plugins, by plugin, call (event or http) and outcome.",
		}, []string{"plugin", "call", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_plugin_call_duration_seconds",
			Help:    "Time of a call into a WebAssembly plugin, waits for an instance or the CPU share included, by plugin and call.",
			Buckets: pluginBuckets,
		}, []string{"plugin", "call"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_plugin_faults_total",
			Help: "Calls into WebAssembly plugins stopped for a fault, by plugin and kind (deadline, cpu_burst, trap).",
		}, []string{"plugin", "kind"}),
	}
	reg.MustRegister(p.calls, p.duration, p.faults)
	return p
}

// Of returns plugin's handle, made when the runtime loads the plugin.
func (p *Plugins) Of(plugin string) *PluginCalls {
	if p == nil {
		return nil
	}
	c := &PluginCalls{}
	for i, call := range callLabels {
		c.duration[i] = p.duration.WithLabelValues(plugin, call)
		for j, outcome := range outcomeLabels {
			c.calls[i][j] = p.calls.WithLabelValues(plugin, call, outcome)
		}
	}
	for i, kind := range faultLabels {
		c.faults[i] = p.faults.WithLabelValues(plugin, kind)
	}
	return c
}

// PluginCalls is one plugin's series.
type PluginCalls struct {
	calls    [len(callLabels)][len(outcomeLabels)]prometheus.Counter
	duration [len(callLabels)]prometheus.Observer
	faults   [len(faultLabels)]prometheus.Counter
}

// Called counts a call (CallEvent, CallHTTP) that ended with outcome
// (Outcome*) after took.
func (c *PluginCalls) Called(call, outcome int, took time.Duration) {
	if c == nil || call < 0 || call >= len(callLabels) || outcome < 0 || outcome >= len(outcomeLabels) {
		return
	}
	c.calls[call][outcome].Inc()
	c.duration[call].Observe(took.Seconds())
}

// Faulted counts a fault of kind (Fault*).
func (c *PluginCalls) Faulted(kind int) {
	if c != nil && kind >= 0 && kind < len(faultLabels) {
		c.faults[kind].Inc()
	}
}
