package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The kinds of event published to relays (the label kind).
const (
	RelayZapReceipt      = "zap_receipt"
	RelayNWCNotification = "nwc_notification"
)

// Relays counts the publications of events to Nostr relays, by kind and
// outcome: one per relay and attempt.
type Relays struct {
	vec *prometheus.CounterVec
}

func newRelays(reg prometheus.Registerer) *Relays {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_relay_publications_total",
		Help: "Attempts to publish an event on a Nostr relay, by kind (zap_receipt, nwc_notification) and outcome: published, failed (retried later) or given_up.",
	}, []string{"kind", "outcome"})
	reg.MustRegister(vec)
	return &Relays{vec: vec}
}

// Of returns the handle of kind (Relay*), made once by its publisher.
func (r *Relays) Of(kind string) *RelayKind {
	if r == nil {
		return nil
	}
	return &RelayKind{
		published: r.vec.WithLabelValues(kind, "published"),
		failed:    r.vec.WithLabelValues(kind, "failed"),
		givenUp:   r.vec.WithLabelValues(kind, "given_up"),
	}
}

// RelayKind is the series of one kind of event.
type RelayKind struct {
	published, failed, givenUp prometheus.Counter
}

// Published counts an event a relay took.
func (k *RelayKind) Published() {
	if k != nil {
		k.published.Inc()
	}
}

// Failed counts an attempt a relay did not take, to be tried again;
// GivenUp one after which the event is tried no more on that relay.
func (k *RelayKind) Failed(givenUp bool) {
	switch {
	case k == nil:
	case givenUp:
		k.givenUp.Inc()
	default:
		k.failed.Inc()
	}
}
