package rates

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts the readings of each price source by outcome (ok, error,
// outlier): hearth_rates_source_total in the server's registry. A nil
// *Metrics (metrics off) counts nothing.
type Metrics struct {
	vec *prometheus.CounterVec
}

// NewMetrics registers the plugin's family on reg; nil when reg is nil.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, nil
	}
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_rates_source_total",
		Help: "Readings of a price source, by outcome: ok, error (no price), outlier (left out: too far from the others).",
	}, []string{"source", "outcome"})
	if err := reg.Register(vec); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return nil, fmt.Errorf("registering the rates' metrics: %w", err)
		}
		existing, ok := are.ExistingCollector.(*prometheus.CounterVec)
		if !ok {
			return nil, fmt.Errorf("registering the rates' metrics: %w", err)
		}
		vec = existing
	}
	return &Metrics{vec: vec}, nil
}

func (m *Metrics) count(source, outcome string) {
	if m != nil {
		m.vec.WithLabelValues(source, outcome).Inc()
	}
}
