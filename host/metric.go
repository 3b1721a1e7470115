package host

import (
	"context"
	"math"
	"regexp"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric is a series a plugin counts itself with the metric host call:
// a counter name is exported as hearth_plugin_<name>_total{plugin=…}, a
// gauge as hearth_plugin_<name>{plugin=…}. Each replica exports what its
// own calls counted, as with every other counter.
type Metric struct {
	Type string `json:"type"` // counter or gauge
	Help string `json:"help,omitempty"`
}

// MetricSink keeps the plugins' own series (lib/metrics.PluginOwn).
type MetricSink interface {
	Counter(plugin, name string) prometheus.Counter
	Gauge(plugin, name string) prometheus.Gauge
	Forget(plugin string)
}

const maxMetrics = 16

var metricNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// validateMetrics checks the manifest's metrics. The names the host's own
// plugin families use (calls, call_duration_seconds, faults) are refused,
// and so are the suffixes Prometheus gives meaning to.
func validateMetrics(ms map[string]Metric, bad func(string, ...any)) {
	if len(ms) > maxMetrics {
		bad("more than %d metrics", maxMetrics)
	}
	for name, m := range ms {
		switch {
		case !metricNameRE.MatchString(name):
			bad("metric %q: 1-48 of a-z, 0-9, '_', starting with a letter", name)
		case strings.HasPrefix(name, "call") || strings.HasPrefix(name, "fault"):
			bad("metric %q: names starting with call or fault are the host's", name)
		case strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_bucket") ||
			strings.HasSuffix(name, "_sum") || strings.HasSuffix(name, "_count") || strings.HasSuffix(name, "_info"):
			bad("metric %q: leave out the suffix (a counter gets _total)", name)
		}
		if m.Type != "counter" && m.Type != "gauge" {
			bad("metric %s: type %q: counter or gauge", name, m.Type)
		}
		if len(m.Help) > 200 {
			bad("metric %s: help longer than 200 bytes", name)
		}
	}
}

// Metric adds add to the plugin's counter name (1 when both are nil), or
// sets its gauge name to set.
func (c *Caller) Metric(ctx context.Context, name string, add, set *float64) error {
	if err := c.allow(ctx, need{what: "metric"}); err != nil {
		return err
	}
	m, ok := c.p.Manifest.Metrics[name]
	if !ok {
		return callErrorf("invalid", "metric %q is not in the manifest's metrics", name)
	}
	sink := c.api.metrics
	switch m.Type {
	case "counter":
		if set != nil {
			return callErrorf("invalid", "%s is a counter: add to it", name)
		}
		v := 1.0
		if add != nil {
			v = *add
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return callErrorf("invalid", "a counter only grows: add %v", v)
		}
		if sink != nil {
			if s := sink.Counter(c.p.Name, name); s != nil {
				s.Add(v)
			}
		}
	default:
		if set == nil || add != nil {
			return callErrorf("invalid", "%s is a gauge: set it", name)
		}
		if math.IsNaN(*set) || math.IsInf(*set, 0) {
			return callErrorf("invalid", "gauge %s set to %v", name, *set)
		}
		if sink != nil {
			if s := sink.Gauge(c.p.Name, name); s != nil {
				s.Set(*set)
			}
		}
	}
	return nil
}

// metricOp is the metric host function: {name, add?} or {name, set}.
func metricOp(ctx context.Context, c *Caller, req []byte) (any, error) {
	var in struct {
		Name string   `json:"name"`
		Add  *float64 `json:"add"`
		Set  *float64 `json:"set"`
	}
	if err := decodeReq(req, &in); err != nil {
		return nil, err
	}
	return nil, c.Metric(ctx, in.Name, in.Add, in.Set)
}
