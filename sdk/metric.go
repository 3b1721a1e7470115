package sdk

// MetricsHandle counts the plugin's own series, those its manifest
// declares under "metrics": {"sent": {"type": "counter"}, "queue": {"type":
// "gauge"}}. The server exports a counter as hearth_plugin_<name>_total
// and a gauge as hearth_plugin_<name>, labelled plugin="<the plugin>".
type MetricsHandle struct{}

// Metrics counts the plugin's own series.
var Metrics MetricsHandle

// Inc adds one to counter name.
func (MetricsHandle) Inc(name string) error { return call(opMetric, map[string]any{"name": name}, nil) }

// Add adds v (0 or more) to counter name.
func (MetricsHandle) Add(name string, v float64) error {
	return call(opMetric, map[string]any{"name": name, "add": v}, nil)
}

// Set sets gauge name to v.
func (MetricsHandle) Set(name string, v float64) error {
	return call(opMetric, map[string]any{"name": name, "set": v}, nil)
}
