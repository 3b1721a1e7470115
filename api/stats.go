package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/lib/metrics"
)

// Stats reads the numbers of GET /v1/system/stats from the metrics that
// this process counts (metrics.Metrics), the same families its scrape
// serves.
type Stats interface {
	Stats() metrics.Stats
}

// statsNote says what GET /v1/system/stats counts, for the document.
const statsNote = "The numbers come from this server's metrics, the same counters and readings that its Prometheus scrape " +
	"serves (hearth_payments_total, hearth_node_up, hearth_node_block_height, hearth_outbox_head, " +
	"hearth_outbox_consumer_lag_events and _seconds), and they are counted whether or not metrics.listen is set. " +
	"They are this process's: with several replicas, each answers for itself. payments.last_minute is the last 60 to 65 seconds; " +
	"payments.minutes are the 60 minutes up to now, oldest first, the last one in progress; minutes before since count nothing. " +
	"The node is asked, and the outbox read, at each request, as at a scrape; what cannot be read is left out and named in errors. " +
	"A consumer's state is running, or off when its feature is off (Wallet Connect without relays, a plugin that can be given no event): " +
	"it then reads nothing and has no lag (hearth_outbox_consumer_running 0, no lag series)."

// errMetricsOff answers GET /v1/system/stats on a server that counts no
// metrics (app.Options.NoMetrics: a benchmark's).
var errMetricsOff = fault.New(fault.Unavailable, "metrics_off", "Metrics are off on this server: it counts nothing, so it has no stats")

func (s *Server) getStats(w http.ResponseWriter, _ bunrouter.Request) error {
	if s.stats == nil {
		return errMetricsOff
	}
	writeJSON(w, http.StatusOK, s.stats.Stats())
	return nil
}
