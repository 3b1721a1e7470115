package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// scrapeTimeout bounds what one collector may take to read its source
// (the node's info, the outbox's next event) at a scrape.
const scrapeTimeout = 5 * time.Second

// The families of the node and of the outbox, which Stats reads too.
const (
	nodeUp       = "hearth_node_up"
	nodeHeight   = "hearth_node_block_height"
	nodeChannels = "hearth_node_channels"
	outboxHead   = "hearth_outbox_head"
	lagEvents    = "hearth_outbox_consumer_lag_events"
	lagSeconds   = "hearth_outbox_consumer_lag_seconds"
	running      = "hearth_outbox_consumer_running"
)

// watch registers s to be scraped and read by Stats.
func (m *Metrics) watch(s *source) {
	m.reg.MustRegister(s)
	m.view.MustRegister(s)
}

// source is a collector that reads its values when Prometheus scrapes.
type source struct {
	descs   []*prometheus.Desc
	collect func(ctx context.Context, ch chan<- prometheus.Metric)
}

func (s *source) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.descs {
		ch <- d
	}
}

func (s *source) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	s.collect(ctx, ch)
}

// ConsumerLag is how far a durable consumer of the outbox is behind its
// head: the events after its position, and the age of the first of them.
// Off is set when the consumer does not run (its feature is off): it has
// no lag then.
type ConsumerLag struct {
	Name    string
	Events  int64
	Seconds float64
	Off     bool
}

// OutboxState is the outbox's head and the lags of the consumers that
// run in this process.
type OutboxState struct {
	Head      int64
	Consumers []ConsumerLag
}

// WatchOutbox reports, at each scrape, what read answers. Nothing when
// m is nil.
func (m *Metrics) WatchOutbox(read func(ctx context.Context) (OutboxState, error)) {
	if m == nil {
		return
	}
	head := prometheus.NewDesc(outboxHead,
		"The outbox's head: every event up to this id is committed and readable.", nil, nil)
	events := prometheus.NewDesc(lagEvents,
		"Events after a durable consumer's position (consumers running in this process).", []string{"consumer"}, nil)
	seconds := prometheus.NewDesc(lagSeconds,
		"Age of the oldest event a durable consumer has not dealt with; 0 when it has caught up.", []string{"consumer"}, nil)
	runs := prometheus.NewDesc(running,
		"1 when a durable consumer runs in this process, 0 when its feature is off (it reads nothing, and has no lag series).", []string{"consumer"}, nil)
	m.watch(&source{descs: []*prometheus.Desc{head, events, seconds, runs}, collect: func(ctx context.Context, ch chan<- prometheus.Metric) {
		st, err := read(ctx)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(head, err)
			return
		}
		ch <- prometheus.MustNewConstMetric(head, prometheus.GaugeValue, float64(st.Head))
		for _, c := range st.Consumers {
			if c.Off {
				ch <- prometheus.MustNewConstMetric(runs, prometheus.GaugeValue, 0, c.Name)
				continue
			}
			ch <- prometheus.MustNewConstMetric(runs, prometheus.GaugeValue, 1, c.Name)
			ch <- prometheus.MustNewConstMetric(events, prometheus.GaugeValue, float64(c.Events), c.Name)
			ch <- prometheus.MustNewConstMetric(seconds, prometheus.GaugeValue, c.Seconds, c.Name)
		}
	}})
}

// NodeState is what the node says of itself.
type NodeState struct {
	BlockHeight uint32
	Channels    int
}

// WatchNode reports, at each scrape, whether the node of backend answers
// read, and its block height and active channels when it does.
func (m *Metrics) WatchNode(backend string, read func(ctx context.Context) (NodeState, error)) {
	if m == nil {
		return
	}
	labels := prometheus.Labels{"backend": backend}
	up := prometheus.NewDesc(nodeUp, "1 when the Lightning node answered at the scrape, else 0.", nil, labels)
	height := prometheus.NewDesc(nodeHeight, "The block height the Lightning node reports.", nil, labels)
	channels := prometheus.NewDesc(nodeChannels, "The Lightning node's active channels.", nil, labels)
	m.watch(&source{descs: []*prometheus.Desc{up, height, channels}, collect: func(ctx context.Context, ch chan<- prometheus.Metric) {
		st, err := read(ctx)
		if err != nil {
			ch <- prometheus.MustNewConstMetric(up, prometheus.GaugeValue, 0)
			return
		}
		ch <- prometheus.MustNewConstMetric(up, prometheus.GaugeValue, 1)
		ch <- prometheus.MustNewConstMetric(height, prometheus.GaugeValue, float64(st.BlockHeight))
		ch <- prometheus.MustNewConstMetric(channels, prometheus.GaugeValue, float64(st.Channels))
	}})
}

// PoolStats is one database connection pool as its driver counts it
// (sql.DB.Stats, pgxpool.Stat).
type PoolStats struct {
	// Pool names it: "writer" and "readers" on SQLite, "pool" on PostgreSQL.
	Pool        string
	Max         int
	InUse, Idle int
	// Waits counts the connections asked for when none was free, and
	// WaitTime is the time they waited, in all.
	Waits    int64
	WaitTime time.Duration
}

// WatchPools reports, at each scrape, the pools read returns.
func (m *Metrics) WatchPools(read func() []PoolStats) {
	if m == nil {
		return
	}
	pool := []string{"pool"}
	conns := prometheus.NewDesc("hearth_db_connections", "Connections of a database pool, by state (in_use, idle).", []string{"pool", "state"}, nil)
	maxConns := prometheus.NewDesc("hearth_db_connections_max", "The most connections a database pool opens.", pool, nil)
	waits := prometheus.NewDesc("hearth_db_waits_total", "Connections asked of a database pool when none was free.", pool, nil)
	waited := prometheus.NewDesc("hearth_db_wait_seconds_total", "Time spent waiting for a connection of a database pool.", pool, nil)
	m.reg.MustRegister(&source{descs: []*prometheus.Desc{conns, maxConns, waits, waited}, collect: func(_ context.Context, ch chan<- prometheus.Metric) {
		for _, p := range read() {
			ch <- prometheus.MustNewConstMetric(conns, prometheus.GaugeValue, float64(p.InUse), p.Pool, "in_use")
			ch <- prometheus.MustNewConstMetric(conns, prometheus.GaugeValue, float64(p.Idle), p.Pool, "idle")
			ch <- prometheus.MustNewConstMetric(maxConns, prometheus.GaugeValue, float64(p.Max), p.Pool)
			ch <- prometheus.MustNewConstMetric(waits, prometheus.CounterValue, float64(p.Waits), p.Pool)
			ch <- prometheus.MustNewConstMetric(waited, prometheus.CounterValue, p.WaitTime.Seconds(), p.Pool)
		}
	}})
}
