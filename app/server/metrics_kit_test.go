package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fiatjaf/khatru"
	gonostr "github.com/nbd-wtf/go-nostr"
	dto "github.com/prometheus/client_model/go"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/lib/metrics"
	"github.com/hearthwallet/hearth/plugins/node/embedded"
)

// outsideNode is the embedded node of the instance, which also pays
// invoices of another node (outside, a second embedded node standing for
// the network): those in failing fail at once, the others succeed with a
// fee of outsideFee. The embedded node's own answer to an outside
// invoice is a refusal before any record, so a payment that leaves the
// instance, and one that fails at the node, need this double; the real
// nodes' payments are tested against regtest networks in their packages.
type outsideNode struct {
	*embedded.Node
	outside *embedded.Node

	mu        sync.Mutex
	preimages map[string]string // bolt11 → preimage, of outside's invoices
	failing   map[string]bool
}

const outsideFee = 1000

func (n *outsideNode) Info(ctx context.Context) (ledger.NodeInfo, error) {
	info, err := n.Node.Info(ctx)
	info.ExternalPayments = true
	return info, err
}

func (n *outsideNode) ExternalPayments() bool { return true }

// invoice issues an invoice of the outside node; fail makes its payment fail.
func (n *outsideNode) invoice(t *testing.T, msat int64, fail bool) string {
	t.Helper()
	inv, err := n.outside.CreateInvoice(context.Background(), ledger.NodeInvoiceRequest{AmountMsat: msat, Description: "outside", Expiry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.preimages[inv.Bolt11] = inv.Preimage
	n.failing[inv.Bolt11] = fail
	return inv.Bolt11
}

func (n *outsideNode) Pay(_ context.Context, req ledger.NodePayment) (*ledger.NodePaymentResult, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	preimage, ok := n.preimages[req.Bolt11]
	switch {
	case !ok:
		return nil, &ledger.PaymentFailure{Reason: "unknown invoice"}
	case n.failing[req.Bolt11]:
		return nil, &ledger.PaymentFailure{Reason: "no route"}
	}
	return &ledger.NodePaymentResult{State: ledger.PaymentSucceeded, FeeMsat: outsideFee, Preimage: preimage}, nil
}

// startRelay runs a Nostr relay that takes every event, counting them.
func startRelay(t *testing.T) (url string, events *atomic.Int64) {
	t.Helper()
	events = new(atomic.Int64)
	r := khatru.NewRelay()
	r.StoreEvent = append(r.StoreEvent, func(context.Context, *gonostr.Event) error {
		events.Add(1)
		return nil
	})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), events
}

// client calls the API of a test server.
type client struct {
	t    *testing.T
	base string
}

// do sends body (JSON, nil for none) with token and decodes the answer
// into out (nil to skip); it returns the status.
func (c client) do(token, method, path string, body, out any) int {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

// series is a gathered sample: its family, labels and value (a
// histogram's count).
type series struct {
	name   string
	labels map[string]string
	value  float64
}

// gather returns every sample of m's families.
func gather(t *testing.T, m *metrics.Metrics) []series {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []series
	for _, f := range fams {
		for _, s := range f.GetMetric() {
			ls := map[string]string{}
			for _, l := range s.GetLabel() {
				ls[l.GetName()] = l.GetValue()
			}
			out = append(out, series{name: f.GetName(), labels: ls, value: value(f.GetType(), s)})
		}
	}
	return out
}

func value(typ dto.MetricType, s *dto.Metric) float64 {
	switch typ {
	case dto.MetricType_COUNTER:
		return s.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return s.GetGauge().GetValue()
	case dto.MetricType_HISTOGRAM:
		return float64(s.GetHistogram().GetSampleCount())
	default:
		return s.GetUntyped().GetValue()
	}
}

// sum adds the values of name's samples whose labels include want
// ("k=v" each); found says whether any matched.
func sum(all []series, name string, want ...string) (total float64, found bool) {
next:
	for _, s := range all {
		if s.name != name {
			continue
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if s.labels[k] != v {
				continue next
			}
		}
		total, found = total+s.value, true
	}
	return total, found
}

// eventually waits for cond, failing with what after 20 s.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// want is an expected value of a sample.
type want struct {
	name   string
	labels []string
	value  float64
}

func (w want) check(all []series) error {
	got, found := sum(all, w.name, w.labels...)
	if !found || got != w.value {
		return fmt.Errorf("%s%v = %v (found %v), want %v", w.name, w.labels, got, found, w.value)
	}
	return nil
}
