package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The outcomes of one attempt of the host's durable sender (the label
// outcome of hearth_sends_total).
const (
	SendDelivered = iota // answered 2xx
	SendRetried          // failed, to be tried again
	SendGivenUp          // failed for good, or past its give-up time
)

var sendLabels = [...]string{"delivered", "retried", "given_up"}

// Sends counts the attempts of the host's durable sender by kind (who
// queued them: plugin:<name>) and outcome, and times each delivered
// request from its queueing.
type Sends struct {
	attempts *prometheus.CounterVec
	delay    *prometheus.HistogramVec
}

func newSends(reg prometheus.Registerer) *Sends {
	s := &Sends{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hearth_sends_total",
			Help: "Attempts of the host's durable sender, by kind (who queued the request) and outcome (delivered, retried, given_up).",
		}, []string{"kind", "outcome"}),
		delay: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hearth_send_delay_seconds",
			Help:    "Time from queueing to delivery of the requests the host's durable sender delivered, by kind.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400},
		}, []string{"kind"}),
	}
	reg.MustRegister(s.attempts, s.delay)
	return s
}

// Sends returns the durable sender's families; nil when m is.
func (m *Metrics) Sends() *Sends {
	if m == nil {
		return nil
	}
	return m.sends
}

// Attempted counts an attempt of kind that came to outcome (Send*);
// delay is the time since it was queued, observed when it was delivered.
func (s *Sends) Attempted(kind string, outcome int, delay time.Duration) {
	if s == nil || outcome < 0 || outcome >= len(sendLabels) {
		return
	}
	s.attempts.WithLabelValues(kind, sendLabels[outcome]).Inc()
	if outcome == SendDelivered {
		s.delay.WithLabelValues(kind).Observe(delay.Seconds())
	}
}
