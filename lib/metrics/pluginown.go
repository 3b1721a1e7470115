package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// PluginOwn holds the series WebAssembly plugins count themselves: a
// counter name declared in a manifest is the family
// hearth_plugin_<name>_total, a gauge hearth_plugin_<name>, each labelled
// with the plugin. Families are made on first use and shared by every
// plugin that declares the name, so their help is the host's.
type PluginOwn struct {
	reg      prometheus.Registerer
	mu       sync.Mutex
	counters map[string]*prometheus.CounterVec
	gauges   map[string]*prometheus.GaugeVec
}

func newPluginOwn(reg prometheus.Registerer) *PluginOwn {
	return &PluginOwn{reg: reg, counters: map[string]*prometheus.CounterVec{}, gauges: map[string]*prometheus.GaugeVec{}}
}

// PluginOwn returns the plugins' own series; nil when m is.
func (m *Metrics) PluginOwn() *PluginOwn {
	if m == nil {
		return nil
	}
	return m.own
}

// Counter returns plugin's counter name, made and registered on first use.
func (o *PluginOwn) Counter(plugin, name string) prometheus.Counter {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.counters[name]
	if v == nil {
		v = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_plugin_" + name + "_total",
			Help: "A counter WebAssembly plugins declare as " + name + ", by plugin.",
		}, []string{"plugin"})
		if err := o.reg.Register(v); err != nil {
			return nil
		}
		o.counters[name] = v
	}
	return v.WithLabelValues(plugin)
}

// Gauge returns plugin's gauge name, made and registered on first use.
func (o *PluginOwn) Gauge(plugin, name string) prometheus.Gauge {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.gauges[name]
	if v == nil {
		v = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hearth_plugin_" + name,
			Help: "A gauge WebAssembly plugins declare as " + name + ", by plugin.",
		}, []string{"plugin"})
		if err := o.reg.Register(v); err != nil {
			return nil
		}
		o.gauges[name] = v
	}
	return v.WithLabelValues(plugin)
}

// Forget drops plugin's series: it was removed.
func (o *PluginOwn) Forget(plugin string) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, v := range o.counters {
		v.DeletePartialMatch(prometheus.Labels{"plugin": plugin})
	}
	for _, v := range o.gauges {
		v.DeletePartialMatch(prometheus.Labels{"plugin": plugin})
	}
}
