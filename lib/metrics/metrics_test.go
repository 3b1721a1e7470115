package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/hearthwallet/hearth/lib/metrics"
)

// touched is a registry in which every family has a series: each part
// counted once, each collector given a source.
func touched(t *testing.T) *metrics.Metrics {
	t.Helper()
	m := metrics.New("test")
	m.Ledger().PaymentSettled("Internal", 1000, 0, time.Millisecond)
	m.Ledger().PaymentFailed("Lightning")
	m.Ledger().InvoiceSettled("Internal", 1000)
	m.Ledger().InvoiceCreated()
	m.HTTP().Route("GET", "/v1/me").Observe(200, time.Millisecond)
	m.Plugins().Of("noop").Called(metrics.CallEvent, metrics.OutcomeOK, time.Millisecond)
	m.Relays().Of(metrics.RelayZapReceipt).Published()
	m.WatchOutbox(func(context.Context) (metrics.OutboxState, error) {
		return metrics.OutboxState{Head: 7, Consumers: []metrics.ConsumerLag{{Name: "builtin:x", Events: 2, Seconds: 1.5}}}, nil
	})
	m.WatchNode("embedded", func(context.Context) (metrics.NodeState, error) { return metrics.NodeState{BlockHeight: 9}, nil })
	m.WatchPools(func() []metrics.PoolStats { return []metrics.PoolStats{{Pool: "pool", Max: 16, InUse: 1, Idle: 2}} })
	return m
}

// labelNames are the only label names a family of Hearth's may carry:
// none names a wallet, a user, an address or an amount.
var labelNames = map[string]bool{"ledger": true, "status": true, "route": true, "method": true, "code": true,
	"plugin": true, "call": true, "outcome": true, "kind": true, "consumer": true, "backend": true,
	"pool": true, "state": true, "version": true, "goversion": true}

// validName is Prometheus' naming: lower snake case, a unit or _total at
// the end where it applies.
var validName = regexp.MustCompile(`^hearth_[a-z0-9_]+$`)

// TestMetricFamiliesNamesAndLabels: Hearth's families start with hearth_,
// counters end in _total, durations are in seconds, and no label is
// outside labelNames; the Go runtime's and the process's are there.
func TestMetricFamiliesNamesAndLabels(t *testing.T) {
	t.Parallel()
	fams, err := touched(t).Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fams {
		name := f.GetName()
		seen[strings.SplitN(name, "_", 2)[0]] = true
		if !strings.HasPrefix(name, "hearth_") {
			continue
		}
		if !validName.MatchString(name) {
			t.Errorf("%s: not a Prometheus name", name)
		}
		if f.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
			t.Errorf("%s: a counter whose name does not end in _total", name)
		}
		if strings.Contains(name, "duration") && !strings.HasSuffix(name, "_seconds") {
			t.Errorf("%s: a duration not in seconds", name)
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if !labelNames[l.GetName()] {
					t.Errorf("%s: label %q is not one of the allowed", name, l.GetName())
				}
			}
		}
	}
	for _, p := range []string{"hearth", "go", "process"} {
		if !seen[p] {
			t.Errorf("no %s_ family", p)
		}
	}
}

// TestMetricsOffCountNothing: a nil *Metrics has nil parts, and every
// method of a nil part is a no-op.
func TestMetricsOffCountNothing(t *testing.T) {
	t.Parallel()
	var m *metrics.Metrics
	if m.Ledger() != nil || m.HTTP() != nil || m.Plugins() != nil || m.Relays() != nil || m.Registerer() != nil {
		t.Fatal("a nil Metrics has parts")
	}
	m.Ledger().PaymentSettled("Internal", 1, 0, 0)
	m.Ledger().PaymentFailed("Internal")
	m.Ledger().InvoiceSettled("Internal", 1)
	m.Ledger().InvoiceCreated()
	m.HTTP().Route("GET", "/").Observe(200, 0)
	m.HTTP().Unmatched("GET").Observe(404, 0)
	m.Plugins().Of("x").Called(metrics.CallHTTP, metrics.OutcomeOK, 0)
	m.Plugins().Of("x").Faulted(metrics.FaultTrap)
	m.Relays().Of(metrics.RelayZapReceipt).Failed(true)
	m.WatchOutbox(nil)
	m.WatchNode("embedded", nil)
	m.WatchPools(nil)
}

// TestMetricsHTTPRoutes: a route's requests count by code under its
// template; a method outside HTTP's counts as "other" on unmatched
// requests, so a client cannot add series.
func TestMetricsHTTPRoutes(t *testing.T) {
	t.Parallel()
	m := metrics.New("test")
	r := m.HTTP().Route("GET", "/v1/me/payments/:id")
	r.Observe(200, time.Millisecond)
	r.Observe(200, time.Millisecond)
	r.Observe(418, time.Millisecond) // not among the known codes
	m.HTTP().Unmatched("BREW").Observe(405, time.Millisecond)
	m.HTTP().Unmatched("BREW2").Observe(405, time.Millisecond)
	want := map[string]uint64{
		`route="/v1/me/payments/:id",method="GET",code="200"`: 2,
		`route="/v1/me/payments/:id",method="GET",code="418"`: 1,
		`route="unmatched",method="other",code="405"`:         2,
	}
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, f := range fams {
		if f.GetName() != "hearth_http_request_duration_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			var ls []string
			for _, l := range s.GetLabel() {
				ls = append(ls, l.GetName()+`="`+l.GetValue()+`"`)
			}
			got[labelOrder(ls)] = s.GetHistogram().GetSampleCount()
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d requests, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}
}

// labelOrder writes route, method, code in that order.
func labelOrder(ls []string) string {
	var out []string
	for _, name := range []string{"route", "method", "code"} {
		for _, l := range ls {
			if strings.HasPrefix(l, name+"=") {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, ",")
}

// TestMetricsHotPathAllocatesNothing: counting an internal payment (its
// invoice and its payment) and timing a request of a known route and
// code allocate nothing once the code's series exists.
func TestMetricsHotPathAllocatesNothing(t *testing.T) {
	m := metrics.New("test")
	r := m.HTTP().Route("POST", "/v1/me/payments")
	r.Observe(201, time.Millisecond)
	allocs := testing.AllocsPerRun(1000, func() {
		m.Ledger().InvoiceSettled("Internal", 1000)
		m.Ledger().PaymentSettled("Internal", 1000, 0, time.Millisecond)
		r.Observe(201, time.Millisecond)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per payment, want 0", allocs)
	}
	if n := mustCounter(t, m, "hearth_payments_total", "internal", "settled"); n != 1001 {
		t.Errorf("hearth_payments_total{internal,settled} = %v, want 1001", n)
	}
}

// mustCounter returns the value of the counter family name with values.
func mustCounter(t *testing.T, m *metrics.Metrics, name string, values ...string) float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			for i, l := range s.GetLabel() {
				if i >= len(values) || l.GetValue() != values[i] {
					continue series
				}
			}
			return s.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s%v", name, values)
	return 0
}

// TestMetricsMux: the listener's handler serves the text format at
// /metrics and nothing elsewhere; a collector whose source fails leaves
// its series out and the rest are served.
func TestMetricsMux(t *testing.T) {
	t.Parallel()
	m := touched(t)
	m.WatchNode("lnd", func(context.Context) (metrics.NodeState, error) { return metrics.NodeState{}, errors.New("down") })
	srv := httptest.NewServer(m.Mux())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics = %d: %s", code, body)
	}
	for _, want := range []string{`hearth_payments_total{ledger="internal",status="settled"} 1`, `hearth_node_up{backend="lnd"} 0`,
		`hearth_node_up{backend="embedded"} 1`, `hearth_outbox_consumer_lag_events{consumer="builtin:x"} 2`, "go_goroutines", "process_cpu_seconds_total"} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
	if code, _ := get("/"); code != 404 {
		t.Errorf("GET / = %d, want 404", code)
	}
}
