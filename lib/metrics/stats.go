package metrics

import (
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// Stats is the few numbers an operator looks at first, read from the
// families that the scrape serves: the payments from
// hearth_payments_total (through the history that RunHistory keeps), the
// node from hearth_node_up, _block_height and _channels, the outbox from
// hearth_outbox_head and the consumers' lags, the last three read as a
// scrape reads them (the node asked, the outbox's next events read). It
// is this process's: with several replicas, each tells its own.
type Stats struct {
	// At is when the stats were read, and Since when this process began
	// counting: the minutes before it count nothing.
	At    time.Time `json:"at"`
	Since time.Time `json:"since"`
	// Payments are the payments that reached their final status.
	Payments PaymentStats `json:"payments"`
	// Node is the Lightning node; nil when it is not watched.
	Node *NodeStats `json:"node,omitempty"`
	// Outbox is the event outbox; nil when there is none or it could not
	// be read (Errors says why).
	Outbox *OutboxStats `json:"outbox,omitempty"`
	// Errors are what could not be read.
	Errors []string `json:"errors,omitempty"`
}

// PaymentStats are the payments of the last minute (the last 60 to 65
// seconds: the history samples every 5) and of each of the last 60
// minutes, oldest first, the last being the minute in progress.
type PaymentStats struct {
	LastMinute PaymentCounts  `json:"last_minute"`
	Minutes    []MinuteCounts `json:"minutes"`
}

// PaymentCounts are the payments settled, in all and by ledger
// (internal, lightning, onchain), and failed, in a span of time.
type PaymentCounts struct {
	Settled  int64            `json:"settled"`
	ByLedger map[string]int64 `json:"settled_by_ledger"`
	Failed   int64            `json:"failed"`
}

// MinuteCounts are the payments of the minute that begins at Start.
type MinuteCounts struct {
	Start time.Time `json:"start"`
	PaymentCounts
}

// NodeStats is the Lightning node as the last read found it.
type NodeStats struct {
	Backend string `json:"backend"`
	// Up is whether the node answered; its height and channels are
	// known only then.
	Up          bool  `json:"up"`
	BlockHeight int64 `json:"block_height"`
	Channels    int64 `json:"channels"`
}

// OutboxStats is the outbox's head and the lag of each durable consumer
// that runs in this process, by name.
type OutboxStats struct {
	Head      int64           `json:"head"`
	Consumers []ConsumerStats `json:"consumers"`
}

// ConsumerStats is one consumer's state and lag: the events after its
// position, and the age of the oldest of them in seconds (0 when caught
// up, and when the consumer is off).
type ConsumerStats struct {
	Name string `json:"name"`
	// State is "running", or "off" when the consumer's feature is off
	// (Wallet Connect without relays, a plugin that can be given no
	// event): it reads nothing, and its position tells no lag.
	State      string  `json:"state"`
	LagEvents  int64   `json:"lag_events"`
	LagSeconds float64 `json:"lag_seconds"`
}

// The states of a consumer.
const (
	ConsumerRunning = "running"
	ConsumerOff     = "off"
)

// Stats reads the stats now. It never fails: what cannot be read is left
// out and named in Errors (with m nil, that metrics are off).
func (m *Metrics) Stats() Stats {
	now := time.Now()
	if m == nil {
		return Stats{At: now.UTC(), Errors: []string{"metrics are off"}}
	}
	st := Stats{At: now.UTC(), Since: m.born.UTC(), Payments: m.history.payments(now, m.ledger.tally())}
	fams, err := m.view.Gather()
	if err != nil {
		st.Errors = strings.Split(err.Error(), "\n")
	}
	var node NodeStats
	lags := map[string]*ConsumerStats{}
	for _, f := range fams {
		for _, s := range f.GetMetric() {
			v := s.GetGauge().GetValue()
			switch f.GetName() {
			case nodeUp:
				node.Up, node.Backend = v == 1, labelValue(s, "backend")
				st.Node = &node
			case nodeHeight:
				node.BlockHeight = int64(v)
			case nodeChannels:
				node.Channels = int64(v)
			case outboxHead:
				st.Outbox = &OutboxStats{Head: int64(v), Consumers: []ConsumerStats{}}
			case lagEvents:
				lagOf(lags, labelValue(s, "consumer")).LagEvents = int64(v)
			case lagSeconds:
				lagOf(lags, labelValue(s, "consumer")).LagSeconds = v
			case running:
				if v == 0 {
					lagOf(lags, labelValue(s, "consumer")).State = ConsumerOff
				}
			}
		}
	}
	if st.Outbox != nil {
		for _, c := range lags {
			st.Outbox.Consumers = append(st.Outbox.Consumers, *c)
		}
		slices.SortFunc(st.Outbox.Consumers, func(a, b ConsumerStats) int { return strings.Compare(a.Name, b.Name) })
	}
	return st
}

// labelValue is the value of s's label name, or "".
func labelValue(s *dto.Metric, name string) string {
	for _, l := range s.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// lagOf is the consumer name's entry in lags, added when new.
func lagOf(lags map[string]*ConsumerStats, name string) *ConsumerStats {
	c := lags[name]
	if c == nil {
		c = &ConsumerStats{Name: name, State: ConsumerRunning}
		lags[name] = c
	}
	return c
}
