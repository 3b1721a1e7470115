package webhooks

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts the attempts to deliver events to webhook endpoints, by
// outcome: the plugin's own family, hearth_webhook_deliveries_total, in
// the server's registry. A nil *Metrics (metrics off) counts nothing.
type Metrics struct {
	delivered, httpError, networkError prometheus.Counter
}

// NewMetrics registers the plugin's family on reg and returns its
// counters; nil when reg is nil (metrics off). A second plugin built on
// the same registry counts into the family the first registered.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, nil
	}
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_webhook_deliveries_total",
		Help: "Attempts to deliver an event to a webhook, by outcome: delivered (2xx), http_error (another status) or network_error (no answer).",
	}, []string{"outcome"})
	if err := reg.Register(vec); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return nil, fmt.Errorf("registering the webhooks' metrics: %w", err)
		}
		existing, ok := are.ExistingCollector.(*prometheus.CounterVec)
		if !ok {
			return nil, fmt.Errorf("registering the webhooks' metrics: %w", err)
		}
		vec = existing
	}
	return &Metrics{
		delivered:    vec.WithLabelValues("delivered"),
		httpError:    vec.WithLabelValues("http_error"),
		networkError: vec.WithLabelValues("network_error"),
	}, nil
}

// Attempted counts one attempt: status is the endpoint's answer, 0 when
// none came.
func (m *Metrics) Attempted(status int) {
	switch {
	case m == nil:
	case status == 0:
		m.networkError.Inc()
	case status >= 200 && status < 300:
		m.delivered.Inc()
	default:
		m.httpError.Inc()
	}
}
