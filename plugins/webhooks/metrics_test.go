package webhooks_test

import (
	"maps"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/hearthwallet/hearth/plugins/webhooks"
)

// deliveries gathers hearth_webhook_deliveries_total from reg: its help
// and its counts by outcome.
func deliveries(t *testing.T, reg *prometheus.Registry) (string, map[string]float64) {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "hearth_webhook_deliveries_total" {
			continue
		}
		if f.GetType() != dto.MetricType_COUNTER {
			t.Fatalf("%s is a %s", f.GetName(), f.GetType())
		}
		got := map[string]float64{}
		for _, s := range f.GetMetric() {
			if ls := s.GetLabel(); len(ls) != 1 || ls[0].GetName() != "outcome" {
				t.Fatalf("labels %v, want outcome alone", ls)
			}
			got[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
		}
		return f.GetHelp(), got
	}
	t.Fatal("no family hearth_webhook_deliveries_total")
	return "", nil
}

// TestMetrics: the plugin's family counts each attempt under its
// outcome, its three series there from the start; a second plugin on the
// same registry counts into the same family; with metrics off (no
// registry) nothing is counted.
func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := webhooks.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	help, got := deliveries(t, reg)
	if want := map[string]float64{"delivered": 0, "http_error": 0, "network_error": 0}; !maps.Equal(got, want) {
		t.Fatalf("before any attempt: %v, want %v", got, want)
	}
	if help != "Attempts to deliver an event to a webhook, by outcome: delivered (2xx), http_error (another status) or network_error (no answer)." {
		t.Errorf("help = %q", help)
	}
	for _, status := range []int{200, 204, 302, 500, 0} {
		m.Attempted(status)
	}
	again, err := webhooks.NewMetrics(reg)
	if err != nil {
		t.Fatalf("a second plugin on the registry: %v", err)
	}
	again.Attempted(299)
	if _, got := deliveries(t, reg); !maps.Equal(got, map[string]float64{"delivered": 3, "http_error": 2, "network_error": 1}) {
		t.Errorf("counts = %v, want delivered 3, http_error 2, network_error 1", got)
	}

	off, err := webhooks.NewMetrics(nil)
	if off != nil || err != nil {
		t.Fatalf("metrics off: %v %v, want nil", off, err)
	}
	off.Attempted(200)

	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "hearth_webhook_deliveries_total", Help: "another"}))
	if _, err := webhooks.NewMetrics(clash); err == nil {
		t.Error("registered over another family of the same name")
	}
}
