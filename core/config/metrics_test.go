package config_test

import (
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/core/config"
)

// TestMetricsListen: metrics are off by default; HEARTH_METRICS_LISTEN
// sets the listener; an address that is no host:port, or the API's own,
// is refused (port 0 twice is two listeners).
func TestMetricsListen(t *testing.T) {
	t.Parallel()
	if c := config.Default(); c.Metrics.Listen != "" {
		t.Fatalf("metrics.listen defaults to %q, want off", c.Metrics.Listen)
	}
	c, err := config.Load("", []string{"HEARTH_METRICS_LISTEN=127.0.0.1:9300"})
	if err != nil || c.Metrics.Listen != "127.0.0.1:9300" {
		t.Fatalf("Load = %q, %v", c.Metrics.Listen, err)
	}
	if _, err := config.Load("", []string{"HEARTH_LISTEN=127.0.0.1:0", "HEARTH_METRICS_LISTEN=127.0.0.1:0"}); err != nil {
		t.Errorf("two listeners on port 0: %v", err)
	}
	for env, want := range map[string]string{
		"HEARTH_METRICS_LISTEN=9300":                                    "not host:port",
		"HEARTH_METRICS_LISTEN=:3000":                                   "must differ from listen",
		"HEARTH_METRICS_OFF=true\nHEARTH_METRICS_LISTEN=127.0.0.1:9300": "must then be empty",
	} {
		if _, err := config.Load("", strings.Split(env, "\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", env, err, want)
		}
	}
}

// TestMetricsOff: metrics are counted by default; HEARTH_METRICS_OFF=true
// turns the counting off.
func TestMetricsOff(t *testing.T) {
	t.Parallel()
	if config.Default().Metrics.Off {
		t.Fatal("metrics.off defaults to true, want the metrics counted")
	}
	c, err := config.Load("", []string{"HEARTH_METRICS_OFF=true"})
	if err != nil || !c.Metrics.Off {
		t.Fatalf("Load = %v, %v; want off", c.Metrics.Off, err)
	}
}
